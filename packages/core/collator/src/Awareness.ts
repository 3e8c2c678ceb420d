/**
 * The awareness service: one method per mcp-awareness tool (camelCase names taking the tool's decoded, typed
 * parameters — upstream's snake_case names and defaults), over the {@link Store} port. Untrusted input goes through
 * `AwarenessTools.call`, which validates it against the tool's schema first.
 *
 * It keeps the collation layer the seed describes: a cached briefing, rebuilt when the store's `version` changes
 * (asked of the store on every read, so writes from other processes and replicas count) or when time makes it
 * out of date (`Collator.Result.valid_until`), so `staleness_sec` is real. A rebuild is incremental: on a store
 * that reports its changes (`StoreShape.changes`: the in-memory store, PGlite, and a PostgreSQL server for the
 * writes its change log holds) only the changed entries of the kept snapshot are read again, and the collator
 * redoes only the sources they touch (`Collator.makeMemo`); otherwise the snapshot is read afresh, counted in the
 * metric `heed.awareness.briefing_snapshots` with the reason. Due intentions are delivered exactly
 * once (`new: true`) and stay in `fired_intentions` until acknowledged or until `firedRetentionMinutes` pass.
 * Time comes from Effect's `Clock`.
 *
 * @since 0.1.0
 */
import { TokenCounter } from "@heed/schema"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AwarenessConfigError, type AwarenessError } from "./AwarenessError.ts"
import type { Input, Reply } from "./AwarenessTools.ts"
import type { Briefing } from "./Briefing.ts"
import type * as Collator from "./Collator.ts"
import * as BriefingCache from "./internal/briefingCache.ts"
import { makeDeps } from "./internal/entries.ts"
import { unavailable } from "./internal/errors.ts"
import * as Intentions from "./internal/intentions.ts"
import * as Maintenance from "./internal/maintenance.ts"
import * as Reads from "./internal/reads.ts"
import { isTimeZone } from "./internal/time.ts"
import * as Writes from "./internal/writes.ts"
import { Store } from "./Store.ts"

export type { SearchHit } from "./internal/reads.ts"
export type { Page } from "./internal/views.ts"

/**
 * The `get_stats` response: entry counts for all ten types, the sources, and the total.
 *
 * @category models
 * @since 0.1.0
 */
export type Stats = Reply<"get_stats">

/**
 * The awareness service's interface: one method per tool, taking the tool's decoded parameters
 * (`AwarenessTools.Input<name>`) and answering its reply (`AwarenessTools.Reply<name>`), failing with
 * {@link AwarenessError}. `peekBriefing` is the briefing the next reader would get, delivering nothing (for
 * background watchers such as a change notifier); `peekBriefingWithin(maxTokens)` is that briefing fitted by the
 * collator under another token budget (at most `maxTokens` where the collator's last-resort counts fit), generated
 * afresh and never cached (for a view of what an agent with a smaller budget would be told).
 *
 * @category models
 * @since 0.1.0
 */
export interface AwarenessShape {
  readonly reportStatus: (input: Input<"report_status">) => Effect.Effect<Reply<"report_status">, AwarenessError>
  readonly reportAlert: (input: Input<"report_alert">) => Effect.Effect<Reply<"report_alert">, AwarenessError>
  readonly learnPattern: (input: Input<"learn_pattern">) => Effect.Effect<Reply<"learn_pattern">, AwarenessError>
  readonly remember: (input: Input<"remember">) => Effect.Effect<Reply<"remember">, AwarenessError>
  readonly addContext: (input: Input<"add_context">) => Effect.Effect<Reply<"add_context">, AwarenessError>
  readonly setPreference: (input: Input<"set_preference">) => Effect.Effect<Reply<"set_preference">, AwarenessError>
  readonly suppressAlert: (input: Input<"suppress_alert">) => Effect.Effect<Reply<"suppress_alert">, AwarenessError>
  readonly clearSuppression: (
    input: Input<"clear_suppression">
  ) => Effect.Effect<Reply<"clear_suppression">, AwarenessError>
  readonly remind: (input: Input<"remind">) => Effect.Effect<Reply<"remind">, AwarenessError>
  readonly updateIntention: (
    input: Input<"update_intention">
  ) => Effect.Effect<Reply<"update_intention">, AwarenessError>
  readonly actedOn: (input: Input<"acted_on">) => Effect.Effect<Reply<"acted_on">, AwarenessError>
  readonly getBriefing: (input?: Input<"get_briefing">) => Effect.Effect<Briefing, AwarenessError>
  readonly peekBriefing: Effect.Effect<Briefing, AwarenessError>
  readonly peekBriefingWithin: (maxTokens: number) => Effect.Effect<Briefing, AwarenessError>
  readonly getAlerts: (input?: Input<"get_alerts">) => Effect.Effect<Reply<"get_alerts">, AwarenessError>
  readonly getStatus: (input: Input<"get_status">) => Effect.Effect<Reply<"get_status">, AwarenessError>
  readonly getKnowledge: (input?: Input<"get_knowledge">) => Effect.Effect<Reply<"get_knowledge">, AwarenessError>
  readonly getSuppressions: (
    input?: Input<"get_suppressions">
  ) => Effect.Effect<Reply<"get_suppressions">, AwarenessError>
  readonly getIntentions: (input?: Input<"get_intentions">) => Effect.Effect<Reply<"get_intentions">, AwarenessError>
  readonly getStats: (input?: Input<"get_stats">) => Effect.Effect<Stats, AwarenessError>
  readonly getTags: (input?: Input<"get_tags">) => Effect.Effect<Reply<"get_tags">, AwarenessError>
  readonly updateEntry: (input: Input<"update_entry">) => Effect.Effect<Reply<"update_entry">, AwarenessError>
  readonly deleteEntry: (input: Input<"delete_entry">) => Effect.Effect<Reply<"delete_entry">, AwarenessError>
  readonly restoreEntry: (input: Input<"restore_entry">) => Effect.Effect<Reply<"restore_entry">, AwarenessError>
  readonly search: (input: Input<"search">) => Effect.Effect<ReadonlyArray<Reads.SearchHit>, AwarenessError>
}

/**
 * Options for `Awareness.layerWith`: the collator options (time zone, horizon, budgets, inhibition, flap damping,
 * acknowledgement and escalation timeouts; `stalenessSec` is managed by the cache), `maxCacheAgeSec`
 * (default 300: a cached briefing older than this is rebuilt even if nothing changed), `firedRetentionMinutes`
 * (default 1440: how long a fired, unacknowledged intention stays in the briefing) and `incremental` (default
 * `true`: rebuilds refresh only what changed, as this module describes; `false` builds every briefing from a full read of
 * the store and a collation from scratch, for comparison or diagnosis). Like the collator's, the snake_case names
 * of earlier releases (`max_cache_age_sec`, `fired_retention_minutes`) are still accepted as deprecated aliases;
 * the camelCase name wins when both are set.
 *
 * The owner's time zone is the `timezone` preference (`set_preference({ key: "timezone", value: "Europe/Berlin" })`)
 * when set, else `timezone` here, else UTC. An unknown `timezone` here, or a negative or non-finite limit, makes
 * building the layer fail with {@link AwarenessConfigError}.
 *
 * The token budget is counted with `countTokens` when given, else with `@heed/schema`'s `TokenCounter` when the
 * environment provides one (an optional service: the layer still requires only `Store`), else with o200k.
 *
 * @category models
 * @since 0.1.0
 */
export interface AwarenessOptions extends Omit<Collator.Options, "stalenessSec" | "staleness_sec" | "memo"> {
  readonly maxCacheAgeSec?: number
  readonly firedRetentionMinutes?: number
  readonly incremental?: boolean
  /** @deprecated Use `maxCacheAgeSec`. */
  readonly max_cache_age_sec?: number
  /** @deprecated Use `firedRetentionMinutes`. */
  readonly fired_retention_minutes?: number
}

const checkOptions = (options: AwarenessOptions): Effect.Effect<void, AwarenessConfigError> => {
  if (options.timezone !== undefined && (typeof options.timezone !== "string" || !isTimeZone(options.timezone))) {
    return Effect.fail(
      new AwarenessConfigError({
        option: "timezone",
        message: `timezone must be an IANA time zone such as "Europe/Berlin" (got ${JSON.stringify(options.timezone)})`
      })
    )
  }
  const limits = ["maxCacheAgeSec", "firedRetentionMinutes", "max_cache_age_sec", "fired_retention_minutes"] as const
  for (const option of limits) {
    const value = options[option]
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      return Effect.fail(
        new AwarenessConfigError({ option, message: `${option} must be a number of at least 0 (got ${value})` })
      )
    }
  }
  return Effect.void
}

const make = (options: AwarenessOptions): Effect.Effect<AwarenessShape, AwarenessConfigError, Store> =>
  Effect.gen(function* () {
    yield* checkOptions(options)
    const store = yield* Store
    // The budget is counted with @heed/schema's TokenCounter when one is provided (an optional service: the layer
    // still requires only Store); an explicit `countTokens` option wins; the collator's default is o200k.
    const counter = yield* Effect.serviceOption(TokenCounter.TokenCounter)
    const countTokens =
      options.countTokens ?? (Option.isSome(counter) ? (text: string) => counter.value.count(text) : undefined)
    const briefings = yield* BriefingCache.make(store, {
      ...options,
      ...(countTokens === undefined ? {} : { countTokens })
    })
    const deps = makeDeps(store)
    const getBriefing = Effect.fn("Awareness.getBriefing")(function* (_input: Input<"get_briefing"> = {}) {
      return yield* Effect.mapError(briefings.read(yield* deps.now), unavailable)
    })
    const peekBriefing = Effect.flatMap(deps.now, (nowMs) => Effect.mapError(briefings.peek(nowMs), unavailable))
    const peekBriefingWithin = (maxTokens: number) =>
      Effect.flatMap(deps.now, (nowMs) => Effect.mapError(briefings.peekWithin(nowMs, maxTokens), unavailable))
    return {
      ...Writes.make(deps),
      ...Intentions.make(deps),
      ...Reads.make(deps),
      ...Maintenance.make(deps),
      getBriefing,
      peekBriefing,
      peekBriefingWithin
    }
  })

/**
 * The awareness service behind every tool. `Awareness.layer` requires a {@link Store};
 * `Awareness.layerWith(options)` configures the collator and the cache (see {@link AwarenessOptions}).
 *
 * **Example** (Reporting an alert and reading the briefing)
 *
 * ```ts
 * import { Awareness, Store } from "@heed/collator"
 * import { Effect, Layer } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const awareness = yield* Awareness.Awareness
 *   yield* awareness.reportStatus({ source: "nas", tags: [], metrics: { cpu_pct: 97 } })
 *   yield* awareness.reportAlert({
 *     source: "nas", tags: ["infra"], alert_id: "cpu", level: "warning", message: "CPU at 97%"
 *   })
 *   return yield* awareness.getBriefing()
 * }).pipe(Effect.provide(Awareness.layer.pipe(Layer.provide(Store.layerMemory))))
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class Awareness extends Context.Service<Awareness, AwarenessShape>()("@heed/collator/Awareness") {}

/**
 * The service with the given options; requires a {@link Store}; fails on a configuration mistake.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerWith = (options: AwarenessOptions = {}): Layer.Layer<Awareness, AwarenessConfigError, Store> =>
  Layer.effect(Awareness, make(options))

/**
 * The service with default options; requires a {@link Store}.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<Awareness, never, Store> = Layer.effect(Awareness, Effect.orDie(make({})))
