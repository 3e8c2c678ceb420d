/**
 * @heed/allocator: Working context, LOD tree, invariants, and greedy and optimal focus allocators.
 *
 * @since 0.1.0
 */
export {}
