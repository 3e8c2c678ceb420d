import { assert, describe, it } from "vitest"
import { Collator, type Entry } from "../src/index.ts"
import { BriefingHistories } from "../src/testing/index.ts"
import { ago, ahead, alert, NOW, snapshot, status, suppression } from "./fixtures.ts"

type Rng = () => number
const pick = <A>(rng: Rng, items: ReadonlyArray<A>): A => items[Math.floor(rng() * items.length)] as A

const sources = ["nas", "ci", "web"]

/**
 * An alert whose result depends on time in every way the memo must notice: an expiry, state changes that enter and
 * leave the flap window, an acknowledgement that times out, a warning that escalates.
 */
const timedAlert = (rng: Rng, from: Date): Entry.Entry => {
  const changes = Array.from({ length: pick(rng, [0, 2, 4, 5]) }, () => ago(Math.floor(rng() * 5400) - 600, from))
  return alert(pick(rng, sources), pick(rng, ["disk", "cpu", "link"]), pick(rng, ["warning", "critical"]), "broken", {
    tags: rng() < 0.3 ? ["maintenance"] : [],
    age: Math.floor(rng() * 20_000),
    data: {
      resolved: rng() < 0.3,
      ...(changes.length > 0 ? { state_changes: changes } : {}),
      ...(rng() < 0.3 ? { acknowledged_at: ago(Math.floor(rng() * 20_000), from) } : {})
    }
  })
}

const withExpiry = (rng: Rng, entry: Entry.Entry, from: Date): Entry.Entry =>
  rng() < 0.3 ? { ...entry, expires: ahead(Math.floor(rng() * 7200) - 600, from) } : entry

/** One series: each step changes an entry (a new object) or moves the clock, then compares. */
const series = (seed: number, steps: number) => {
  const rng = BriefingHistories.random(seed)
  let now = NOW
  const memo = Collator.makeMemo()
  const current = snapshot({
    statuses: sources.map((source) => status(source, { ttl: pick(rng, [60, 600, 7200]), age: 30 })),
    alerts: Array.from({ length: 8 }, () => withExpiry(rng, timedAlert(rng, now), now)),
    suppressions: [suppression({ tags: ["maintenance"], expiresIn: 900 }), suppression({ source: "ci", expiresIn: 60 })]
  })
  const alerts = current.alerts as Array<Entry.Entry>
  for (let step = 0; step < steps; step++) {
    const roll = rng()
    // Mostly forward, sometimes back (a clock set back, or a caller asking about an earlier instant).
    if (roll < 0.4)
      now = new Date(now.getTime() + pick(rng, [1000, 59_000, 600_000, 3_600_000, 14_400_000, -3_600_000]))
    else if (roll < 0.7) alerts[Math.floor(rng() * alerts.length)] = withExpiry(rng, timedAlert(rng, now), now)
    else if (roll < 0.85) alerts.push(withExpiry(rng, timedAlert(rng, now), now))
    else if (alerts.length > 1) alerts.splice(Math.floor(rng() * alerts.length), 1)
    const expected = Collator.generate(current, now)
    const actual = Collator.generate(current, now, { memo })
    const what = `seed ${seed}, step ${step}`
    assert.deepStrictEqual(actual.briefing, expected.briefing, what)
    assert.strictEqual(actual.valid_until, expected.valid_until, what)
    assert.deepStrictEqual(
      actual.fired.map((entry) => entry.id),
      expected.fired.map((entry) => entry.id),
      what
    )
  }
}

describe("Collator.makeMemo", () => {
  it("gives the same result as no memo after every step of 1,000 random series of changes and clock moves", () => {
    for (let seed = 1; seed <= 1000; seed++) series(seed, 30)
  }, 60_000)

  it("does not keep live alerts across calls with other flap settings", () => {
    const memo = Collator.makeMemo()
    const changes = [ago(600), ago(500), ago(400)]
    const flapping = alert("nas", "disk", "warning", "disk 91%", { data: { resolved: true, state_changes: changes } })
    const current = snapshot({ alerts: [flapping] })
    assert.isUndefined(Collator.generate(current, NOW, { memo }).briefing.sources.nas)
    const lower = Collator.generate(current, NOW, { memo, flapThreshold: 3 })
    assert.strictEqual(lower.briefing.sources.nas?.status, "warning")
  })

  it("does not keep a source's surfacing across calls with other acknowledgement or escalation timeouts", () => {
    const memo = Collator.makeMemo()
    // A warning firing for 2 hours, acknowledged an hour ago: hidden under the default 4-hour timeouts.
    const acked = alert("nas", "disk", "warning", "disk 91%", { age: 7200, data: { acknowledged_at: ago(3600) } })
    const firing = alert("ci", "slow", "warning", "build slow", { age: 7200 })
    const current = snapshot({ alerts: [acked, firing] })
    const first = Collator.generate(current, NOW, { memo }).briefing
    assert.strictEqual(first.sources.nas?.status, "ok")
    assert.strictEqual(first.sources.ci?.status, "warning")
    // One timeout changes at a time, so that each one alone must make the memo decide afresh.
    const ack = Collator.generate(current, NOW, { memo, acknowledgementTimeoutMinutes: 30 }).briefing
    assert.strictEqual(ack.sources.nas?.status, "warning")
    assert.strictEqual(ack.sources.ci?.status, "warning")
    const options = { memo, acknowledgementTimeoutMinutes: 30, escalationTimeoutMinutes: 60 }
    const escalated = Collator.generate(current, NOW, options).briefing
    assert.strictEqual(escalated.sources.nas?.status, "critical")
    assert.strictEqual(escalated.sources.ci?.status, "critical")
  })

  it("keeps an unchanged source's screening and re-screens only the changed source", () => {
    const memo = Collator.makeMemo()
    const nas = alert("nas", "disk", "warning", "disk 91%")
    const ci = alert("ci", "main_red", "critical", "main is red")
    Collator.generate(snapshot({ alerts: [nas, ci] }), NOW, { memo })
    const changed = { ...nas, data: { ...nas.data, message: "disk 95%" } }
    const { briefing } = Collator.generate(snapshot({ alerts: [changed, ci] }), NOW, { memo })
    assert.strictEqual(briefing.sources.nas?.headline, "disk 95%")
    assert.deepStrictEqual((memo as unknown as { stats: unknown }).stats, { calls: 2, screened: 3, reused: 1 })
  })
})
