/**
 * The awareness server's entry point. Placeholder until the awareness-server issue lands.
 *
 * @since 0.1.0
 */
console.error("heed: the awareness server is not built yet (apps/awareness is being written).")
process.exitCode = 1
