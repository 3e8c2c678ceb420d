/**
 * The backend behind the MCP surface: one `Awareness` service per owner over the configured store, plus a change
 * signal for briefing notifications.
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import { mkdirSync } from "node:fs"
import { Awareness, Store } from "@heed/collator"
import { type AwarenessResolver, ToolError } from "@heed/mcp"
import * as Database from "@heed/postgres/Database"
import * as PostgresStore from "@heed/postgres/PostgresStore"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import type { MigrationError } from "effect/sql/Migrator"
import type * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as DataDirLock from "./DataDirLock.ts"

/**
 * The backend service.
 *
 * @category services
 * @since 0.1.0
 */
export class Backend extends Context.Service<
  Backend,
  {
    /** The awareness service of one owner (built on first use, then cached). */
    readonly forOwner: (owner: string) => Effect.Effect<AwarenessResolver.AwarenessApi, ToolError.ErrorBody>
    /** Every awareness service created so far (watched for time-driven briefing changes). */
    readonly watched: Effect.Effect<ReadonlyArray<AwarenessResolver.AwarenessApi>>
    /**
     * The audience of an owner's briefing notifications: an opaque id, made on first use and stable for the
     * process, so a notification tagged with it names no owner.
     */
    readonly audienceFor: (owner: string) => string
    /** The audience of an awareness service this backend made (its owner's), or `undefined` for a stranger. */
    readonly audienceOf: (awareness: AwarenessResolver.AwarenessApi) => string | undefined
    /** Fires when some owner's briefing may have changed. */
    readonly changes?: Stream.Stream<void> | undefined
    /** A short description of the store, for the start banner (e.g. "embedded PGlite at .heed/data"). */
    readonly description: string
  }
>()("@heed/awareness/Backend") {}

/**
 * The stores a backend can run on.
 *
 * @category models
 * @since 0.1.0
 */
export type StoreKind =
  | { readonly _tag: "embedded"; readonly dataDir: string }
  | { readonly _tag: "server"; readonly url: Redacted.Redacted<string> }
  | { readonly _tag: "memory" }

/**
 * The database layer for a store kind (migrations run when it is built).
 *
 * @category layers
 * @since 0.1.0
 */
export const databaseLayer = (
  kind: Exclude<StoreKind, { _tag: "memory" }>
): Layer.Layer<
  SqlClient.SqlClient | Database.Backend,
  DataDirError | DataDirLock.DataDirLocked | SqlError | MigrationError | Database.DatabaseConfigError
> =>
  kind._tag === "embedded"
    ? Layer.unwrap(
        Effect.gen(function* () {
          yield* ensureDirectory(kind.dataDir)
          // PGlite has no lock of its own: a second process on the folder would lose writes.
          if (!kind.dataDir.includes("://")) yield* DataDirLock.acquire(kind.dataDir)
          return Database.layerEmbedded({ dataDir: kind.dataDir })
        })
      )
    : Database.layer({ url: kind.url })

/**
 * Failure to create the embedded store's data directory.
 *
 * @category errors
 * @since 0.1.0
 */
export class DataDirError extends Schema.TaggedError<DataDirError>()("DataDirError", { message: Schema.String }) {}

/** Creates the data directory (and its parents) unless it is an in-memory PGlite URL such as `memory://`. */
const ensureDirectory = (dataDir: string) =>
  dataDir.includes("://")
    ? Effect.void
    : Effect.try({
        try: () => {
          mkdirSync(dataDir, { recursive: true })
        },
        catch: (cause) => new DataDirError({ message: `cannot create the data directory ${dataDir}: ${String(cause)}` })
      })

const toolError = (owner: string, cause: unknown): ToolError.ErrorBody =>
  ToolError.make({
    code: "unavailable",
    message: `The store for owner '${owner}' could not be opened: ${
      Predicate.hasProperty(cause, "message") ? String(cause.message) : String(cause)
    }`,
    retryable: true
  })

const cachedPerOwner = (
  build: (owner: string, scope: Scope.Scope) => Effect.Effect<AwarenessResolver.AwarenessApi, unknown>,
  scope: Scope.Scope
) =>
  Effect.gen(function* () {
    const cache = new Map<string, AwarenessResolver.AwarenessApi>()
    const owners = new WeakMap<AwarenessResolver.AwarenessApi, string>()
    const audiences = new Map<string, string>()
    const audienceFor = (owner: string) => {
      let audience = audiences.get(owner)
      if (audience === undefined) {
        audience = randomUUID()
        audiences.set(owner, audience)
      }
      return audience
    }
    const lock = yield* Semaphore.make(1)
    const forOwner = (owner: string): Effect.Effect<AwarenessResolver.AwarenessApi, ToolError.ErrorBody> =>
      Effect.suspend(() => {
        const hit = cache.get(owner)
        if (hit !== undefined) return Effect.succeed(hit)
        return lock.withPermits(1)(
          Effect.suspend(() => {
            const again = cache.get(owner)
            if (again !== undefined) return Effect.succeed(again)
            return build(owner, scope).pipe(
              Effect.tap((awareness) =>
                Effect.sync(() => {
                  cache.set(owner, awareness)
                  owners.set(awareness, owner)
                })
              ),
              Effect.mapError((cause) => toolError(owner, cause))
            )
          })
        )
      })
    const audienceOf = (awareness: AwarenessResolver.AwarenessApi) => {
      const owner = owners.get(awareness)
      return owner === undefined ? undefined : audienceFor(owner)
    }
    return { forOwner, watched: Effect.sync(() => [...cache.values()]), audienceFor, audienceOf }
  })

/**
 * The backend: one `Awareness` service per owner (created on first use and kept), each over its own owner-scoped
 * `Store` on the shared database, and the database's change feed as the change signal.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (kind: StoreKind, options: Awareness.AwarenessOptions = {}) => {
  if (kind._tag === "memory") {
    return Layer.effect(
      Backend,
      Effect.gen(function* () {
        const scope = yield* Effect.scope
        const perOwner = yield* cachedPerOwner(
          (_owner, scope) =>
            Layer.buildWithScope(Awareness.layerWith(options).pipe(Layer.provide(Store.layerMemory)), scope).pipe(
              Effect.map((context) => Context.get(context, Awareness.Awareness))
            ),
          scope
        )
        return Backend.of({ ...perOwner, description: "in-memory store (nothing is kept)" })
      })
    )
  }
  return Layer.effect(
    Backend,
    Effect.gen(function* () {
      const scope = yield* Effect.scope
      const database = yield* Effect.context<SqlClient.SqlClient | Database.Backend>()
      const perOwner = yield* cachedPerOwner(
        (owner, scope) =>
          Layer.buildWithScope(
            Awareness.layerWith(options).pipe(Layer.provide(PostgresStore.layerWith({ owner }))),
            scope
          ).pipe(
            Effect.provideContext(database),
            Effect.map((context) => Context.get(context, Awareness.Awareness))
          ),
        scope
      )
      const feed = Context.get(database, Database.Backend)
      const changes = Stream.unwrap(feed.subscribe).pipe(
        Stream.map(() => undefined),
        Stream.catchCause((cause) =>
          Stream.fromEffect(Effect.logWarning("heed: change feed stopped", cause)).pipe(Stream.drain)
        )
      )
      return Backend.of({
        ...perOwner,
        changes,
        description:
          kind._tag === "embedded" ? `embedded PGlite at ${kind.dataDir}` : "PostgreSQL server (DATABASE_URL)"
      })
    })
  ).pipe(Layer.provide(databaseLayer(kind)))
}
