/**
 * @heed/postgres: Durable awareness storage on PostgreSQL, with embedded PGlite as the default.
 *
 * @since 0.1.0
 */

/**
 * The change feed (LISTEN/NOTIFY on a server, in-process on PGlite): a signal per committed change of an owner
 * (for push notifications; briefing caches compare the store version on each read).
 *
 * @since 0.1.0
 */
export * as ChangeFeed from "./ChangeFeed.ts"

/**
 * Migrated `effect/sql` clients for both backends (PGlite embedded, PostgreSQL server) and the change feed.
 *
 * @since 0.1.0
 */
export * as Database from "./Database.ts"

/**
 * Full-text search with upstream's weights and PostgreSQL's language configurations.
 *
 * @since 0.1.0
 */
export * as FullTextSearch from "./FullTextSearch.ts"

/**
 * The database schema as `effect/sql` Migrator migrations.
 *
 * @since 0.1.0
 */
export * as Migrations from "./Migrations.ts"

/**
 * A small `effect/sql` driver over in-process PGlite.
 *
 * @since 0.1.0
 */
export * as PgliteClient from "./PgliteClient.ts"

/**
 * `@heed/collator`'s `Store` port on PostgreSQL: `layerEmbedded` (PGlite), `layer` and `layerConfig` (server).
 *
 * @since 0.1.0
 */
export * as PostgresStore from "./PostgresStore.ts"
