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

  it("ends a kept surfacing at the first acknowledgement timeout of its source, exactly then", () => {
    const memo = Collator.makeMemo()
    // Acknowledged 3 h and 1 h ago under the default 4-hour timeout: they surface again in 1 h and in 3 h.
    const older = alert("nas", "disk", "warning", "disk 91%", { age: 20_000, data: { acknowledged_at: ago(3 * 3600) } })
    const newer = alert("nas", "fan", "warning", "fan slow", { age: 20_000, data: { acknowledged_at: ago(3600) } })
    const current = snapshot({ alerts: [older, newer] })
    const options = { memo, escalationTimeoutMinutes: null }
    assert.strictEqual(Collator.generate(current, NOW, options).briefing.sources.nas?.status, "ok")
    const hourLater = new Date(NOW.getTime() + 3600_000)
    assert.strictEqual(Collator.generate(current, hourLater, options).briefing.sources.nas?.headline, "disk 91%")
    const threeHoursLater = new Date(NOW.getTime() + 3 * 3600_000)
    assert.strictEqual(Collator.generate(current, threeHoursLater, options).briefing.sources.nas?.alerts, 2)
  })

  it("surfaces afresh while an inhibition rule mutes something (inhibition looks across sources)", () => {
    const memo = Collator.makeMemo()
    const current = snapshot({
      alerts: [alert("nas", "down", "critical", "NAS unreachable"), alert("nas", "disk", "warning", "Disk 91%")]
    })
    for (let call = 0; call < 2; call++) {
      const { briefing } = Collator.generate(current, NOW, { memo, inhibitRules: [{ equal: ["source"] }] })
      assert.strictEqual(briefing.evaluation.inhibited, 1)
      assert.strictEqual(briefing.active_alerts, 1)
    }
  })

  it("keeps an unchanged source's surfacing and its alerts' reading across calls, also at the same instant", () => {
    const memo = Collator.makeMemo() as unknown as {
      readonly surfacings: ReadonlyMap<string, unknown>
      readonly alerts: WeakMap<Entry.Entry, unknown>
    }
    const nas = alert("nas", "disk", "warning", "disk 91%")
    const ci = alert("ci", "main_red", "critical", "main is red")
    Collator.generate(snapshot({ alerts: [nas, ci] }), NOW, { memo: memo as unknown as Collator.Memo })
    const ciSurfacing = memo.surfacings.get("ci")
    const nasSurfacing = memo.surfacings.get("nas")
    assert.isDefined(ciSurfacing)
    assert.isDefined(memo.alerts.get(ci))
    const changed = { ...nas, data: { ...nas.data, message: "disk 95%" } }
    Collator.generate(snapshot({ alerts: [changed, ci] }), NOW, { memo: memo as unknown as Collator.Memo })
    assert.strictEqual(memo.surfacings.get("ci"), ciSurfacing)
    assert.notStrictEqual(memo.surfacings.get("nas"), nasSurfacing)
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
