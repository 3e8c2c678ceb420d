// Agent test harness: a real ngircd, an agent from a real config (sub-second bands), people over raw sockets,
// and waits on events or state (never sleeps).
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { IrcTestClient, NgircdServer } from "@heed/irc"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import type * as Agent from "../src/Agent.ts"
import { runAgent } from "../src/Cli.ts"
import * as Config from "../src/Config.ts"

const reason = NgircdServer.unavailableReason()
const ci = process.env.CI === "true"
if (reason !== undefined) {
  console.warn(ci ? `ngircd missing under CI=true: ${reason}` : `skipping the agent's ngircd tests: ${reason}`)
}

/** Whether tests needing ngircd skip (reason printed above); under CI=true they run and fail instead. */
export const skipIrc = reason !== undefined && !ci

const tlsReason = reason === undefined ? NgircdServer.tlsUnavailableReason() : reason
if (reason === undefined && tlsReason !== undefined) {
  console.warn(
    ci ? `TLS test server missing under CI=true: ${tlsReason}` : `skipping the agent's TLS test: ${tlsReason}`
  )
}

/** Whether tests needing ngircd with TLS (and openssl) skip; under CI=true they run and fail instead. */
export const skipTls = tlsReason !== undefined && !ci

export const NICK = "spark-bot"

/** Sub-second bands: tick 0.05 s, HOT polled every 0.1 s; holds given per test. */
export const fastAttention = (holds: { hot?: number; warm?: number; cool?: number } = {}) => ({
  tick_s: 0.05,
  thread_window_s: 60,
  bands: {
    hot: { interval_s: 0.1, hold_s: holds.hot ?? 60 },
    warm: { interval_s: 0.2, hold_s: holds.warm ?? 60 },
    cool: { interval_s: 0.3, hold_s: holds.cool ?? 60 },
    idle: { interval_s: 0.4 }
  }
})

export const stateDir = () => mkdtempSync(join(tmpdir(), "heed-agent-test-"))

/** Starts an agent for `raw` (a parsed agent.yaml without `server`) against `server`. */
export const startAgent = (server: NgircdServer.NgircdServer, raw: Record<string, unknown>) =>
  Effect.gen(function* () {
    const dir = stateDir()
    const config = yield* Config.decode(
      {
        server: { host: server.host, port: server.port, nick: NICK },
        state_dir: dir,
        send: { rate: 20, burst: 20 },
        ...raw
      },
      dir
    ).pipe(Effect.orDie)
    const agent = yield* runAgent(config).pipe(Effect.orDie)
    const turns = yield* Stream.toQueue(yield* agent.subscribeTurns, { capacity: "unbounded" })
    return { agent, config, turns }
  })

/** A person who joined `channels` before the agent, and waits until the agent is in all of them. */
export const person = (server: NgircdServer.NgircdServer, nick: string, channels: ReadonlyArray<string>) =>
  IrcTestClient.rawClient(server.port, nick, channels)

export const waitForAgentIn = (client: IrcTestClient.RawClient, channels: ReadonlyArray<string>) =>
  Effect.forEach(channels, (channel) =>
    client.waitForPresence((line) => line === `JOIN ${NICK} ${channel}`, `${NICK} in ${channel}`)
  )

/** The next turn matching `predicate`. */
export const nextTurn = (
  turns: Queue.Dequeue<Agent.Turn, unknown>,
  predicate: (turn: Agent.Turn) => boolean,
  what: string
) =>
  Effect.gen(function* () {
    while (true) {
      const turn = yield* Queue.take(turns)
      if (predicate(turn)) return turn
    }
  }).pipe(
    Effect.orDie,
    Effect.timeoutOrElse({
      duration: "60 seconds",
      orElse: () => Effect.die(new Error(`timed out waiting for ${what}`))
    })
  )

/** Waits until a target's band satisfies `predicate` (checked as the scheduler changes it), then returns it. */
export const bandOf = (agent: Agent.AgentShape, target: string) =>
  Effect.map(agent.scheduler.get(target), (state) => Option.getOrUndefined(state))

export const waitForState = (
  agent: Agent.AgentShape,
  target: string,
  predicate: (state: NonNullable<Effect.Success<ReturnType<typeof bandOf>>>) => boolean,
  what: string
) =>
  bandOf(agent, target).pipe(
    Effect.repeat({
      until: (state) => state !== undefined && predicate(state),
      schedule: Schedule.spaced("20 millis")
    }),
    Effect.map((state) => state!),
    Effect.timeoutOrElse({
      duration: "60 seconds",
      orElse: () => Effect.die(new Error(`timed out waiting for ${what}`))
    })
  )
