/**
 * A real IRC server for tests and benchmarks: Debian's `ngircd`, started on a free loopback port with a generated
 * config in a temporary directory, stopped (and restartable on the same port) from the test.
 *
 * @since 0.1.0
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"

/**
 * The server could not be started; `message` says why (not installed, or it did not come up).
 *
 * @category errors
 * @since 0.1.0
 */
export class NgircdError extends Schema.TaggedError<NgircdError>()("NgircdError", {
  message: Schema.String
}) {}

/**
 * A running test server.
 *
 * @category models
 * @since 0.1.0
 */
export interface NgircdServer {
  readonly host: string
  /** The plain-text port. */
  readonly port: number
  /**
   * With `tls: true`: the TLS port and the PEM file of the server's self-signed certificate (for 127.0.0.1 and
   * localhost), to trust as a CA.
   */
  readonly tls: { readonly port: number; readonly caFile: string } | undefined
  /** Kills the server (SIGKILL, like a crash) and waits for it to exit. */
  readonly kill: Effect.Effect<void>
  /** Starts it again on the same port and waits until it accepts clients. */
  readonly restart: Effect.Effect<void, NgircdError>
}

const candidates = ["/usr/sbin/ngircd", "/usr/bin/ngircd", "/usr/local/sbin/ngircd"]

/**
 * The path of the `ngircd` binary, or `undefined` when it is not installed (`./heed test` installs it on Debian).
 *
 * @category getters
 * @since 0.1.0
 */
export const binary = (): string | undefined => {
  const which = spawnSync("sh", ["-c", "command -v ngircd"], { encoding: "utf8" })
  const found = which.status === 0 ? which.stdout.trim() : ""
  return found.length > 0 ? found : candidates.find((path) => spawnSync("test", ["-x", path]).status === 0)
}

/**
 * Why tests that need ngircd cannot run here, or `undefined` when they can.
 *
 * @category getters
 * @since 0.1.0
 */
export const unavailableReason = (): string | undefined =>
  binary() === undefined
    ? "ngircd is not installed (./heed test installs Debian's ngircd as root; or run: apt-get install ngircd)"
    : undefined

const freePort = Effect.callback<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/**
 * Settings of {@link startWith}.
 *
 * @category models
 * @since 0.1.0
 */
export interface StartOptions {
  /** Also listen for TLS on a second free port, with a self-signed certificate made by `openssl` (default false). */
  readonly tls?: boolean | undefined
}

/**
 * Why a TLS test server cannot start here (`openssl` or ngircd's TLS support missing), or `undefined` when it can.
 *
 * @category getters
 * @since 0.1.0
 */
export const tlsUnavailableReason = (): string | undefined => {
  const missing = unavailableReason()
  if (missing !== undefined) return missing
  if (spawnSync("openssl", ["version"]).status !== 0) {
    return "openssl is not installed (./heed test installs Debian's openssl as root; or run: apt-get install openssl)"
  }
  const version = spawnSync(binary()!, ["--version"], { encoding: "utf8" }).stdout
  return /\+SSL/.test(version) ? undefined : `this ngircd was built without TLS support (${version.split("\n")[0]})`
}

// A self-signed certificate for 127.0.0.1 and localhost, and DH parameters (ngircd would otherwise spend seconds
// generating its own), in `dir`.
const makeCertificate = (dir: string) =>
  Effect.try({
    try: () => {
      const run = (args: ReadonlyArray<string>) => {
        const result = spawnSync("openssl", args, { cwd: dir, encoding: "utf8" })
        if (result.status !== 0) throw new Error(`openssl ${args[0]} failed: ${result.stderr || result.error?.message}`)
      }
      run([
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        "key.pem",
        "-out",
        "cert.pem",
        "-days",
        "2",
        "-subj",
        "/CN=heed.test",
        "-addext",
        "subjectAltName=IP:127.0.0.1,DNS:localhost"
      ])
      run(["genpkey", "-genparam", "-algorithm", "DH", "-pkeyopt", "group:ffdhe2048", "-out", "dh.pem"])
      return { cert: join(dir, "cert.pem"), key: join(dir, "key.pem"), dh: join(dir, "dh.pem") }
    },
    catch: (error) => new NgircdError({ message: (error as Error).message })
  })

const tlsSection = (port: number, files: { cert: string; key: string; dh: string }) => [
  "[SSL]",
  `CertFile = ${files.cert}`,
  `KeyFile = ${files.key}`,
  `DHFile = ${files.dh}`,
  `Ports = ${port}`
]

const config = (port: number, tls: ReadonlyArray<string>) =>
  [
    "[Global]",
    "Name = heed.test",
    "Info = heed test server",
    "AdminInfo1 = heed tests",
    "AdminInfo2 = loopback only",
    "AdminEMail = nobody@heed.test",
    "Listen = 127.0.0.1",
    `Ports = ${port}`,
    "MotdPhrase = heed test server",
    "[Limits]",
    "MaxConnections = 0",
    "MaxConnectionsIP = 0",
    "MaxJoins = 0",
    "MaxNickLength = 30",
    "MaxListSize = 1000",
    "PingTimeout = 120",
    "PongTimeout = 60",
    "[Options]",
    "PAM = no",
    "Ident = no",
    "DNS = no",
    ...tls,
    ""
  ].join("\n")

// Starts ngircd in the foreground and resolves once it logs that it is ready.
const launch = (path: string, conf: string) =>
  Effect.callback<ChildProcess, NgircdError>((resume) => {
    const child = spawn(path, ["-n", "-f", conf], { stdio: ["ignore", "pipe", "pipe"] })
    let log = ""
    const onData = (chunk: Buffer) => {
      log += chunk.toString()
      if (/Server "[^"]+" \(on "[^"]*"\) ready/.test(log)) {
        child.stdout?.off("data", onData)
        child.stdout?.resume()
        child.stderr?.resume()
        resume(Effect.succeed(child))
      }
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", onData)
    child.once("exit", (code) =>
      resume(Effect.fail(new NgircdError({ message: `ngircd exited (${code}) before it was ready:\n${log}` })))
    )
    child.once("error", (error) => resume(Effect.fail(new NgircdError({ message: error.message }))))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

const stop = (child: ChildProcess, signal: NodeJS.Signals) =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
    child.kill(signal)
  })

/**
 * Starts ngircd on a free loopback port (and, with `tls`, a second one for TLS) in the current scope; the scope's
 * end stops it and removes its files. Fails with {@link NgircdError} when ngircd (or, for TLS, `openssl`) is
 * missing or the server does not come up.
 *
 * @category constructors
 * @since 0.1.0
 */
export const startWith = (options: StartOptions = {}): Effect.Effect<NgircdServer, NgircdError, Scope.Scope> =>
  Effect.gen(function* () {
    const path = binary()
    if (path === undefined) return yield* new NgircdError({ message: unavailableReason() ?? "ngircd missing" })
    const missing = options.tls === true ? tlsUnavailableReason() : undefined
    if (missing !== undefined) return yield* new NgircdError({ message: missing })
    const port = yield* freePort
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "heed-ngircd-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    )
    const tls = options.tls === true ? { port: yield* freePort, files: yield* makeCertificate(dir) } : undefined
    const conf = join(dir, "ngircd.conf")
    writeFileSync(conf, config(port, tls === undefined ? [] : tlsSection(tls.port, tls.files)))
    let child = yield* launch(path, conf)
    yield* Effect.addFinalizer(() => stop(child, "SIGTERM"))
    return {
      host: "127.0.0.1",
      port,
      tls: tls === undefined ? undefined : { port: tls.port, caFile: tls.files.cert },
      kill: Effect.suspend(() => stop(child, "SIGKILL")),
      restart: Effect.suspend(() => launch(path, conf)).pipe(
        Effect.tap((next) =>
          Effect.sync(() => {
            child = next
          })
        ),
        Effect.asVoid
      )
    } satisfies NgircdServer
  })

/**
 * {@link startWith} without TLS: ngircd on one free loopback port.
 *
 * @category constructors
 * @since 0.1.0
 */
export const start: Effect.Effect<NgircdServer, NgircdError, Scope.Scope> = startWith()
