/**
 * @heed/postgres: Durable awareness storage on PostgreSQL, with embedded PGlite as the default.
 *
 * @since 0.1.0
 */
export {}
