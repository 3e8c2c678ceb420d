/**
 * Turns a failed command into the one line a user reads: what went wrong and how to fix it, without a stack trace
 * (the full cause is printed only with `--log-level debug`).
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Predicate from "effect/Predicate"

const field = (value: unknown, key: string): unknown =>
  Predicate.hasProperty(value, key) ? (value as Record<string, unknown>)[key] : undefined

/** The innermost `cause` chain of an error, outermost first. */
const chain = (error: unknown): Array<unknown> => {
  const out: Array<unknown> = []
  let current: unknown = error
  while (current !== undefined && current !== null && out.length < 8) {
    out.push(current)
    current = field(current, "cause")
  }
  return out
}

const messageOf = (value: unknown): string => {
  const message = field(value, "message")
  return typeof message === "string" ? message : String(value)
}

/**
 * The one-line explanation of `error`.
 *
 * @category getters
 * @since 0.1.0
 */
export const explain = (error: unknown): string => {
  const links = chain(error)
  const errno = links.map((link) => field(link, "code")).find((code) => typeof code === "string")
  const tag = field(error, "_tag")
  if (errno === "EADDRINUSE" || errno === "EACCES") {
    const text = links.map(messageOf).join(" ")
    const address = /(\S+:\d+)\s*$/.exec(text.split("\n")[0] ?? "")?.[1] ?? /(?:in use|denied)\s+(\S+)/.exec(text)?.[1]
    const where =
      address === undefined ? "the HTTP port" : `port ${address.replace(/^.*:/, "")} on ${address.replace(/:\d+$/, "")}`
    return errno === "EADDRINUSE"
      ? `${where} is already in use (another server?): stop it, or choose another port with --port or HEED_PORT`
      : `permission denied to listen on ${where}: choose a port above 1023 with --port or HEED_PORT`
  }
  if (tag === "ConfigError") {
    return `bad setting: ${messageOf(error)
      .replace(/^SchemaError\(|\)$/g, "")
      .replace(/\s+/g, " ")}`
  }
  if (typeof tag === "string" && tag.includes("SqlError")) {
    const root = links[links.length - 1]
    return `the database is unavailable: ${messageOf(root)}; check --database-url or DATABASE_URL (a PostgreSQL server must be reachable)`
  }
  const message = messageOf(error)
  return message === "" ? `${String(tag ?? "error")} (rerun with --log-level debug for details)` : message
}

/**
 * The line for a failed command's cause, or `undefined` when it was only interrupted.
 *
 * @category getters
 * @since 0.1.0
 */
export const fromCause = (cause: Cause.Cause<unknown>): string | undefined => {
  if (Cause.hasInterruptsOnly(cause)) return undefined
  const failure = cause.reasons.find(Cause.isFailReason)
  if (failure !== undefined) return explain(failure.error)
  const defect = cause.reasons.find(Cause.isDieReason)
  return `unexpected error: ${defect === undefined ? "unknown" : messageOf(defect.defect)} (rerun with --log-level debug for details)`
}

/**
 * Whether the command line or environment asks for debug output (`--log-level debug|trace|all`).
 *
 * @category getters
 * @since 0.1.0
 */
export const wantsDebug = (argv: ReadonlyArray<string>, env: Record<string, string | undefined>): boolean => {
  const index = argv.findIndex((arg) => arg === "--log-level" || arg.startsWith("--log-level="))
  const value =
    index === -1 ? env.HEED_LOG_LEVEL : argv[index]!.includes("=") ? argv[index]!.split("=")[1] : argv[index + 1]
  return ["debug", "trace", "all"].includes((value ?? "").toLowerCase())
}
