/**
 * `heed-awareness report status|alert|remind …`: report to a running awareness server from a shell, the way a cron
 * job, a CI step or a home-automation hook would, over the REST API. The server's URL and token come from `--url` and
 * `--token` or `HEED_URL` and `HEED_TOKEN`. The reply is printed as JSON; a refused report exits non-zero with the
 * server's problem (code, parameter, did-you-mean) on stderr.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * A report failed: the server refused it (its problem is in the message) or could not be reached.
 *
 * @category errors
 * @since 0.1.0
 */
export class ReportFailure extends Schema.TaggedError<ReportFailure>()("ReportFailure", { message: Schema.String }) {}

const connection = {
  url: Flag.String("url").pipe(
    Flag.withDescription("The server (env HEED_URL, default http://127.0.0.1:8420)"),
    Flag.withFallbackConfig(Config.String("HEED_URL")),
    Flag.withDefault("http://127.0.0.1:8420")
  ),
  token: Flag.String("token").pipe(
    Flag.withDescription("Bearer token when the server requires auth (env HEED_TOKEN)"),
    Flag.withFallbackConfig(Config.String("HEED_TOKEN")),
    Flag.optional
  )
}

const tags = Flag.String("tag").pipe(Flag.withDescription("A tag (repeat for several)"), Flag.atLeast(0))

/** A metric value as typed on the command line: numbers and booleans keep their JSON type. */
const metricValue = (text: string): unknown => {
  if (text === "true" || text === "false") return text === "true"
  const number = Number(text)
  return text.trim() !== "" && Number.isFinite(number) ? number : text
}

/** The problem+json body of a refused request as one line for a person. */
export const describeProblem = (status: number, body: unknown): string => {
  if (!Predicate.isObject(body)) return `the server answered ${status}`
  const problem = body as Record<string, unknown>
  const parts = [String(problem.detail ?? problem.title ?? `HTTP ${status}`)]
  const facts: Array<string> = []
  if (problem.code !== undefined) facts.push(`code ${String(problem.code)}`)
  if (problem.parameter !== undefined) facts.push(`parameter ${String(problem.parameter)}`)
  if (facts.length > 0) parts.push(`(${facts.join(", ")})`)
  if (problem.suggestion !== undefined && !parts[0]!.includes("Did you mean")) {
    parts.push(`Did you mean '${String(problem.suggestion)}'?`)
  }
  return `${status}: ${parts.join(" ")}`
}

/**
 * Posts `body` to `path` on the server and prints the reply.
 *
 * @category constructors
 * @since 0.1.0
 */
export const post = (
  base: string,
  token: Option.Option<string>,
  path: string,
  body: unknown
): Effect.Effect<unknown, ReportFailure> =>
  Effect.gen(function* () {
    // an empty HEED_URL or HEED_TOKEN counts as unset
    const url = `${(base.trim() === "" ? "http://127.0.0.1:8420" : base.trim()).replace(/\/+$/, "")}${path}`
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" }
    if (Option.isSome(token) && token.value.trim() !== "") headers.authorization = `Bearer ${token.value.trim()}`
    const response = yield* Effect.tryPromise({
      try: (signal) => fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal }),
      catch: (cause) =>
        new ReportFailure({
          message: `cannot reach ${url}: ${Predicate.hasProperty(cause, "message") ? String(cause.message) : String(cause)}`
        })
    })
    const text = yield* Effect.promise(() => response.text())
    let reply: unknown = text
    try {
      reply = JSON.parse(text)
    } catch {
      // not JSON: reported as text below
    }
    if (!response.ok) return yield* new ReportFailure({ message: describeProblem(response.status, reply) })
    yield* Console.log(JSON.stringify(reply, null, 2))
    return reply
  })

const status = Command.make(
  "status",
  {
    ...connection,
    source: Flag.String("source").pipe(Flag.withDescription("The reporting source, e.g. synology-nas")),
    tags,
    metrics: Flag.KeyValuePair("metric").pipe(
      Flag.withDescription("A metric as name=value (repeat for several)"),
      Flag.withDefault({})
    ),
    headline: Flag.String("headline").pipe(
      Flag.withDescription("A headline shown while the source is ok"),
      Flag.optional
    ),
    ttl: Flag.Int("ttl").pipe(
      Flag.withDescription("Seconds until the source counts as stale (default 120)"),
      Flag.optional
    )
  },
  (flags) => {
    const metrics: Record<string, unknown> = {}
    for (const [name, value] of Object.entries(flags.metrics)) metrics[name] = metricValue(value)
    return post(flags.url, flags.token, "/v1/status", {
      source: flags.source,
      tags: flags.tags,
      metrics,
      ...(Option.isSome(flags.headline) ? { headline: flags.headline.value } : {}),
      ...(Option.isSome(flags.ttl) ? { ttl_sec: flags.ttl.value } : {})
    })
  }
).pipe(Command.withDescription("Report a source's status (POST /v1/status)"))

const alert = Command.make(
  "alert",
  {
    ...connection,
    source: Flag.String("source").pipe(Flag.withDescription("The reporting source")),
    id: Flag.String("id").pipe(Flag.withDescription("Stable id of the alert within its source")),
    level: Flag.String("level").pipe(Flag.withDescription("warning or critical"), Flag.withDefault("warning")),
    message: Flag.String("message").pipe(Flag.withDescription("One human sentence")),
    tags,
    resolved: Flag.Boolean("resolved").pipe(Flag.withDescription("Resolve the alert"), Flag.withDefault(false))
  },
  (flags) =>
    post(flags.url, flags.token, "/v1/alerts", {
      source: flags.source,
      tags: flags.tags,
      alert_id: flags.id,
      level: flags.level,
      message: flags.message,
      ...(flags.resolved ? { resolved: true } : {})
    })
).pipe(Command.withDescription("Raise, update or resolve an alert (POST /v1/alerts)"))

const remind = Command.make(
  "remind",
  {
    ...connection,
    goal: Flag.String("goal").pipe(Flag.withDescription("What should happen")),
    source: Flag.String("source").pipe(Flag.withDescription("Where it belongs"), Flag.withDefault("cli")),
    at: Flag.String("at").pipe(Flag.withDescription("ISO 8601 time to surface it"), Flag.optional),
    tags
  },
  (flags) =>
    post(flags.url, flags.token, "/v1/intentions", {
      goal: flags.goal,
      source: flags.source,
      tags: flags.tags,
      ...(Option.isSome(flags.at) ? { deliver_at: flags.at.value } : {})
    })
).pipe(Command.withDescription("Create a reminder (POST /v1/intentions)"))

/**
 * The `report` command with its `status`, `alert` and `remind` subcommands.
 *
 * @category constructors
 * @since 0.1.0
 */
export const command = Command.make("report").pipe(
  Command.withDescription("Report to a running server over its REST API (URL and token: flags or HEED_URL/HEED_TOKEN)"),
  Command.withSubcommands([status, alert, remind])
)
