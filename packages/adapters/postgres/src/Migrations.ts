/**
 * The database schema, as `effect/sql` Migrator migrations: the `entries` table with mcp-awareness's envelope and
 * its generated full-text `tsv`, the `reads` and `actions` tables, upstream's indexes, the per-owner write counter
 * `store_versions`, row-level security per owner, and the change-feed trigger. The same statements run on PGlite
 * and on a PostgreSQL server.
 *
 * `entries.envelope` (type `json`, which keeps text verbatim) holds the entry exactly as the caller wrote it: key
 * order, the original ISO strings and optional keys, so an entry reads back identical to what was stored; the typed
 * columns (`data` and `tags` are `jsonb`) serve filters, indexes and search. A trigger empties the envelope when a
 * column changes without it (a plain SQL edit), and reads then build the entry from the columns.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

/**
 * The table in which the Migrator records applied migrations.
 *
 * @category constants
 * @since 0.1.0
 */
export const table = "heed_migrations"

/**
 * The PostgreSQL setting that carries the current owner for row-level security, set per transaction with
 * `set_config('app.current_user', owner, true)` (upstream's name).
 *
 * @category constants
 * @since 0.1.0
 */
export const ownerSetting = "app.current_user"

/**
 * The owner whose `schema` entries every owner may read (upstream's shared-schema owner).
 *
 * @category constants
 * @since 0.1.0
 */
export const systemOwner = "_system"

const statements = (...list: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    for (const statement of list) yield* sql.unsafe(statement)
  })

const entryTypes =
  "'status','alert','pattern','suppression','context','preference','note','intention','schema','record'"

const createEntries = statements(
  `CREATE TABLE entries (
    id text NOT NULL,
    owner_id text NOT NULL,
    type text NOT NULL CHECK (type IN (${entryTypes})),
    source text NOT NULL,
    tags jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(tags) = 'array'),
    created timestamptz NOT NULL DEFAULT now(),
    updated timestamptz,
    expires timestamptz,
    deleted timestamptz,
    data jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(data) = 'object'),
    logical_key text,
    envelope json NOT NULL DEFAULT '{}'::json,
    language regconfig NOT NULL DEFAULT 'simple'::regconfig,
    tsv tsvector GENERATED ALWAYS AS (
      setweight(to_tsvector(language, coalesce(data->>'description', data->>'message', '')), 'A') ||
      setweight(to_tsvector(language, coalesce(data->>'content', '')), 'B') ||
      setweight(to_tsvector(language, coalesce(data->>'goal', '')), 'B') ||
      setweight(jsonb_to_tsvector(language, tags, '["string"]'::jsonb), 'C')
    ) STORED,
    PRIMARY KEY (owner_id, id)
  )`,
  // (owner_id, id) is the primary key (heed: ids are unique per owner, so an id taken in one tenant can neither
  // block nor reveal anything in another); upstream's (owner_id) index is kept for parity.
  "CREATE INDEX entries_owner_idx ON entries (owner_id)",
  "CREATE INDEX entries_owner_type_idx ON entries (owner_id, type)",
  "CREATE INDEX entries_owner_source_idx ON entries (owner_id, source)",
  "CREATE INDEX entries_owner_type_source_idx ON entries (owner_id, type, source)",
  "CREATE INDEX entries_tags_idx ON entries USING gin (tags)",
  `CREATE UNIQUE INDEX entries_logical_key_idx ON entries (owner_id, source, logical_key)
    WHERE logical_key IS NOT NULL AND deleted IS NULL`,
  "CREATE INDEX entries_tsv_idx ON entries USING gin (tsv)",
  "CREATE INDEX entries_language_idx ON entries (language) WHERE language <> 'simple'::regconfig",
  // An update that changes a column but leaves the envelope as it was (plain SQL, not the store) empties the
  // envelope, so reads fall back to the columns: the edit wins and the envelope can never go stale.
  `CREATE FUNCTION heed_entries_envelope_guard() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    IF NEW.envelope::text = OLD.envelope::text AND
      (NEW.id, NEW.type, NEW.source, NEW.tags, NEW.created, NEW.updated, NEW.expires, NEW.deleted, NEW.data,
        NEW.logical_key) IS DISTINCT FROM
      (OLD.id, OLD.type, OLD.source, OLD.tags, OLD.created, OLD.updated, OLD.expires, OLD.deleted, OLD.data,
        OLD.logical_key) THEN
      NEW.envelope := '{}'::json;
    END IF;
    RETURN NEW;
  END
  $fn$`,
  `CREATE TRIGGER entries_envelope_guard BEFORE UPDATE ON entries
    FOR EACH ROW EXECUTE FUNCTION heed_entries_envelope_guard()`
)

const createReadsActions = statements(
  `CREATE TABLE reads (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner_id text NOT NULL,
    entry_id text NOT NULL,
    timestamp timestamptz NOT NULL DEFAULT now(),
    platform text,
    tool_used text,
    FOREIGN KEY (owner_id, entry_id) REFERENCES entries (owner_id, id) ON DELETE CASCADE
  )`,
  "CREATE INDEX reads_owner_entry_idx ON reads (owner_id, entry_id)",
  "CREATE INDEX reads_owner_timestamp_idx ON reads (owner_id, timestamp)",
  `CREATE TABLE actions (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner_id text NOT NULL,
    entry_id text NOT NULL,
    timestamp timestamptz NOT NULL DEFAULT now(),
    platform text,
    action text NOT NULL,
    detail text,
    tags jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(tags) = 'array'),
    FOREIGN KEY (owner_id, entry_id) REFERENCES entries (owner_id, id) ON DELETE CASCADE
  )`,
  "CREATE INDEX actions_owner_entry_idx ON actions (owner_id, entry_id)",
  "CREATE INDEX actions_owner_timestamp_idx ON actions (owner_id, timestamp)"
)

// The per-owner write counter is sharded: a write bumps one of 16 rows (holding its lock until COMMIT) and the
// version is their sum, so concurrent writers of one owner do not queue behind a single hot row.
const createVersions = statements(
  `CREATE TABLE store_versions (
    owner_id text NOT NULL,
    shard smallint NOT NULL CHECK (shard >= 0 AND shard < 16),
    version bigint NOT NULL,
    PRIMARY KEY (owner_id, shard)
  )`
)

const current = `current_setting('${ownerSetting}', true)`

const rowLevelSecurity = statements(
  "ALTER TABLE entries ENABLE ROW LEVEL SECURITY",
  "ALTER TABLE entries FORCE ROW LEVEL SECURITY",
  // upstream's rule: an owner reads its own rows plus the shared schemas of the system owner, and writes only its own
  // rows; split per command so that another owner's shared schema is read-only (updates and deletes skip it)
  `CREATE POLICY entries_owner_read ON entries FOR SELECT
    USING (owner_id = ${current} OR (owner_id = '${systemOwner}' AND type = 'schema'))`,
  `CREATE POLICY entries_owner_insert ON entries FOR INSERT WITH CHECK (owner_id = ${current})`,
  `CREATE POLICY entries_owner_update ON entries FOR UPDATE
    USING (owner_id = ${current}) WITH CHECK (owner_id = ${current})`,
  `CREATE POLICY entries_owner_delete ON entries FOR DELETE USING (owner_id = ${current})`,
  "ALTER TABLE reads ENABLE ROW LEVEL SECURITY",
  "ALTER TABLE reads FORCE ROW LEVEL SECURITY",
  `CREATE POLICY reads_owner_isolation ON reads USING (owner_id = ${current}) WITH CHECK (owner_id = ${current})`,
  "ALTER TABLE actions ENABLE ROW LEVEL SECURITY",
  "ALTER TABLE actions FORCE ROW LEVEL SECURITY",
  `CREATE POLICY actions_owner_isolation ON actions USING (owner_id = ${current}) WITH CHECK (owner_id = ${current})`,
  "ALTER TABLE store_versions ENABLE ROW LEVEL SECURITY",
  "ALTER TABLE store_versions FORCE ROW LEVEL SECURITY",
  `CREATE POLICY store_versions_owner_isolation ON store_versions
    USING (owner_id = ${current}) WITH CHECK (owner_id = ${current})`
)

/**
 * The prefix of the change-feed channel; the full channel is `heed_entries:<schema>`, so deployments that share
 * a database in different schemas do not wake each other.
 *
 * @category constants
 * @since 0.1.0
 */
export const channelPrefix = "heed_entries:"

const changeFeed = statements(
  `CREATE FUNCTION heed_notify_entry_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    IF TG_OP = 'DELETE' THEN
      PERFORM pg_notify(left('${channelPrefix}' || current_schema(), 63), OLD.owner_id);
    ELSE
      PERFORM pg_notify(left('${channelPrefix}' || current_schema(), 63), NEW.owner_id);
    END IF;
    RETURN NULL;
  END
  $fn$`,
  `CREATE TRIGGER entries_change_feed AFTER INSERT OR UPDATE OR DELETE ON entries
    FOR EACH ROW EXECUTE FUNCTION heed_notify_entry_change()`
)

/**
 * The migrations, keyed `<id>_<name>` as `Migrator.fromRecord` expects.
 *
 * @category constants
 * @since 0.1.0
 */
// The log of each write's changed ids under the counter shard and version it bumped (see internal/changeLog.ts).
const createChanges = statements(
  `CREATE TABLE store_changes (
    owner_id text NOT NULL,
    shard smallint NOT NULL,
    version bigint NOT NULL,
    ids jsonb NOT NULL,
    PRIMARY KEY (owner_id, shard, version)
  )`,
  "ALTER TABLE store_changes ENABLE ROW LEVEL SECURITY",
  "ALTER TABLE store_changes FORCE ROW LEVEL SECURITY",
  `CREATE POLICY store_changes_owner_isolation ON store_changes
    USING (owner_id = ${current}) WITH CHECK (owner_id = ${current})`
)

export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "1_create_entries": createEntries,
  "2_create_reads_actions": createReadsActions,
  "3_create_store_versions": createVersions,
  "4_row_level_security": rowLevelSecurity,
  "5_change_feed": changeFeed,
  "6_store_changes": createChanges
}

/**
 * Applies every pending migration (each in a transaction, serialised by a table lock so concurrent starters are
 * safe) and returns the ones it applied; re-running on an up-to-date database applies nothing.
 *
 * @category combinators
 * @since 0.1.0
 */
export const run: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError,
  SqlClient.SqlClient
> = Migrator.make({})({ loader: Migrator.fromRecord(migrations), table })

/**
 * A layer that migrates the database behind `SqlClient` when it is built.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<never, Migrator.MigrationError | SqlError, SqlClient.SqlClient> =
  Layer.effectDiscard(run)
