/**
 * @heed/state-tree: SLOP-compatible state tree with attention metadata, token budgets, digest and patches.
 *
 * @since 0.1.0
 */
export {}
