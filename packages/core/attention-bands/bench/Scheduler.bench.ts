import { Bench } from "@heed/bench"
import { Effect, Exit, Logger, Scope } from "effect"
import { AttentionConfig, Scheduler } from "../src/index.ts"

// The Effect layer on top of the tracker: per poll it runs the caller's effect, marks the target, bumps
// `culture.attention.polls` and sets the `culture.attention.band` gauge. Legacy mode (attention disabled) polls every
// tracked target on each tick, so a tick here is exactly 1,000 polls; the loop itself never fires (interval 1e9 s).
const TARGETS = 1_000
const scope = Effect.runSync(Scope.make())
const config: AttentionConfig.AttentionConfig = {
  ...AttentionConfig.defaults,
  enabled: false,
  poll_interval: 1e9
}
const scheduler = Effect.runSync(
  Scheduler.make({
    config,
    agent: "bench-bot",
    targets: Array.from({ length: TARGETS }, (_, i) => `#channel-${i}`),
    poll: () => Effect.succeed("empty" as const)
  }).pipe(Scope.provide(scope), Effect.provide(Logger.layer([])))
)

await Bench.run(
  "attention-bands: Scheduler (Effect, metrics)",
  [
    {
      name: "tick polling 1,000 targets (no-op poll)",
      fn: () => Effect.runSync(scheduler.tick),
      figures: { polls: TARGETS }
    }
  ],
  { timeMs: 500 }
)

Effect.runSync(Scope.close(scope, Exit.void))
