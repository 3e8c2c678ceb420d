/**
 * Decides, before anything heavy loads, whether a command line is a stdio session on an embedded data directory
 * (`serve --stdio` with at most `--data-dir` and `--log-level`, no `--memory`, no PostgreSQL URL), which `main.ts`
 * runs as a shared session (`Session.ts`); every other command line goes to the full program. Plain Node, like the
 * session itself.
 *
 * @since 0.1.0
 */
import { homedir } from "node:os"
import { isAbsolute, join, resolve } from "node:path"

/**
 * The default data directory (`Settings.defaultDataDir` is this function).
 *
 * @category getters
 * @since 0.1.0
 */
export const defaultDataDir = (
  env: { readonly XDG_DATA_HOME?: string | undefined; readonly HOME?: string | undefined } = process.env
): string => {
  if (env.XDG_DATA_HOME !== undefined && isAbsolute(env.XDG_DATA_HOME)) {
    return join(env.XDG_DATA_HOME, "heed", "awareness")
  }
  return join(env.HOME !== undefined && env.HOME !== "" ? env.HOME : homedir(), ".local", "share", "heed", "awareness")
}

/**
 * A shared stdio session's options.
 *
 * @category models
 * @since 0.1.0
 */
export interface SharedSession {
  readonly dataDir: string
  readonly logLevel?: string | undefined
}

/**
 * The shared session a command line (without `node` and the script) asks for, or `undefined` when the full program
 * must run it.
 *
 * @category decoding
 * @since 0.1.0
 */
export const sharedSessionOf = (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>
): SharedSession | undefined => {
  if (env.DATABASE_URL !== undefined && env.DATABASE_URL !== "") return undefined
  let serve = false
  let stdio = false
  let dataDir: string | undefined
  let logLevel: string | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const [name, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined]
    if (name === "serve" && !serve && !stdio && dataDir === undefined) serve = true
    else if (name === "--stdio" && serve && inline === undefined) stdio = true
    else if (name === "--data-dir" || name === "--log-level") {
      const value = inline ?? args[++i]
      if (value === undefined || value === "" || value.startsWith("--")) return undefined
      if (name === "--data-dir") {
        if (!serve) return undefined
        dataDir = value
      } else logLevel = value
    } else return undefined
  }
  if (!serve || !stdio) return undefined
  const chosen =
    dataDir ?? (env.HEED_DATA_DIR !== undefined && env.HEED_DATA_DIR !== "" ? env.HEED_DATA_DIR : defaultDataDir(env))
  if (chosen.includes("://")) return undefined // memory:// and other non-file PGlite stores
  return { dataDir: resolve(chosen), logLevel }
}
