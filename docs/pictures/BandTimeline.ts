// The band timeline: one target's attention band and its polls over 30 minutes of mentions, chatter and silence,
// simulated with the pure `Tracker` (default config) and `Engagement`, ticking every 5 seconds as the scheduler does.
import { AttentionConfig, type Band, Engagement, Tracker } from "@heed/attention-bands"
import { palette, renderVegaLite } from "./Chart.ts"

const target = "#dev"
const minutes = 30
const tick = AttentionConfig.defaults.tick_s

/** What happens on the target, by second: a mention (direct) or a message from someone else (ambient). */
export const script: ReadonlyArray<{ readonly at: number; readonly kind: "mention" | "message" }> = [
  { at: 60, kind: "mention" },
  ...[80, 110, 150, 200, 260].map((at) => ({ at, kind: "message" as const })),
  { at: 480, kind: "message" },
  { at: 600, kind: "mention" },
  ...[630, 660].map((at) => ({ at, kind: "message" as const }))
]

export interface Timeline {
  readonly bands: ReadonlyArray<{ readonly minute: number; readonly band: Band.Band }>
  readonly polls: ReadonlyArray<{ readonly minute: number; readonly band: Band.Band }>
}

/** Runs the script through a tracker and records the band at every tick and every poll it makes. */
export const simulate = (): Timeline => {
  const tracker = Tracker.make(AttentionConfig.defaults)
  const engagement = Engagement.make(AttentionConfig.defaults)
  tracker.seed(target)
  const bands: Array<Timeline["bands"][number]> = []
  const polls: Array<Timeline["polls"][number]> = []
  let next = 0
  for (let now = 0; now <= minutes * 60; now += tick) {
    while (next < script.length && script[next]!.at <= now) {
      const { at, kind } = script[next++]!
      if (kind === "mention") {
        engagement.engage(target, at)
        tracker.onDirect(target, at)
      } else if (engagement.isEngaged(target, at)) {
        tracker.onAmbient(target, at)
      }
    }
    const due = tracker.dueTargets(now)
    const band = tracker.get(target).pipe((state) => (state._tag === "Some" ? state.value.band : "IDLE"))
    bands.push({ minute: now / 60, band })
    if (due.includes(target)) {
      tracker.markPolled(target, now)
      polls.push({ minute: now / 60, band })
    }
  }
  return { bands, polls }
}

const bandOrder = ["HOT", "WARM", "COOL", "IDLE"]

/** The picture: the band as a step line, a dot per poll, a rule per stimulus. */
export const svg = (): Promise<string> => {
  const { bands, polls } = simulate()
  const y = { field: "band", type: "ordinal", sort: bandOrder, title: "band" } as const
  const x = {
    field: "minute",
    type: "quantitative" as const,
    title: "minutes",
    scale: { domain: [0, minutes] },
    axis: { values: Array.from({ length: minutes / 5 + 1 }, (_, i) => i * 5) }
  }
  const color = {
    field: "band",
    type: "nominal",
    sort: bandOrder,
    scale: { domain: bandOrder, range: bandOrder.map((band) => palette[band as Band.Band]) },
    legend: null
  } as const
  return renderVegaLite({
    title: `${target}: band and polls over ${minutes} minutes (default config)`,
    width: 640,
    height: 160,
    resolve: { scale: { color: "independent" } },
    layer: [
      {
        data: { values: script.map((event) => ({ minute: event.at / 60, stimulus: event.kind })) },
        mark: { type: "rule", strokeDash: [3, 3] },
        encoding: {
          x,
          color: {
            field: "stimulus",
            type: "nominal",
            scale: { domain: ["mention", "message"], range: ["#9467bd", palette.muted] },
            legend: { orient: "top", title: null }
          }
        }
      },
      {
        data: { values: bands },
        mark: { type: "line", interpolate: "step-after", color: "#444", strokeWidth: 1.5 },
        // With a nominal y, Vega-Lite would join the points in band order; a timeline joins them in time order.
        encoding: { x, y, order: { field: "minute", type: "quantitative" } }
      },
      {
        data: { values: polls },
        mark: { type: "circle", size: 45, opacity: 1 },
        encoding: { x, y, color, tooltip: [{ field: "minute", format: ".1f" }, { field: "band" }] }
      }
    ]
  })
}
