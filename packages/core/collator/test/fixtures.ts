import type { Collator, Entry } from "../src/index.ts"

/** 2026-03-20 is a Friday. */
export const NOW = new Date("2026-03-20T12:00:00.000Z")

const iso = (ms: number) => {
  const text = new Date(ms).toISOString()
  return text.endsWith(".000Z") ? `${text.slice(0, -5)}Z` : text
}
export const ago = (seconds: number, from: Date = NOW): string => iso(from.getTime() - seconds * 1000)
export const ahead = (seconds: number, from: Date = NOW): string => iso(from.getTime() + seconds * 1000)

let counter = 0
const nextId = (prefix: string) => `${prefix}-${++counter}`

const base = (type: Entry.Entry["type"], source: string, fields: Partial<Entry.Entry>): Entry.Entry => ({
  id: nextId(type),
  type,
  source,
  tags: [],
  created: ago(10),
  updated: null,
  expires: null,
  deleted: null,
  data: {},
  ...fields
})

export const status = (
  source: string,
  options: { age?: number; ttl?: number; headline?: string; data?: Record<string, unknown> } = {}
): Entry.Entry =>
  base("status", source, {
    created: ago(options.age ?? 10),
    data: {
      metrics: {},
      ttl_sec: options.ttl ?? 120,
      ...(options.headline === undefined ? {} : { headline: options.headline }),
      ...options.data
    }
  })

export const alert = (
  source: string,
  alertId: string,
  level: "info" | "warning" | "critical",
  message: string,
  options: { data?: Record<string, unknown>; tags?: ReadonlyArray<string>; age?: number; updatedAgo?: number } = {}
): Entry.Entry =>
  base("alert", source, {
    tags: [...(options.tags ?? [])],
    created: ago(options.age ?? 10),
    updated: options.updatedAgo === undefined ? null : ago(options.updatedAgo),
    data: { alert_id: alertId, level, alert_type: "threshold", message, resolved: false, ...options.data }
  })

export const suppression = (
  options: {
    source?: string
    tags?: ReadonlyArray<string>
    metric?: string | null
    level?: "warning" | "critical"
    override?: boolean
    expiresIn?: number
    createdAgo?: number
    data?: Record<string, unknown>
  } = {}
): Entry.Entry =>
  base("suppression", options.source ?? "", {
    tags: [...(options.tags ?? [])],
    created: ago(options.createdAgo ?? 60),
    expires: ahead(options.expiresIn ?? 3600),
    data: {
      metric: options.metric ?? null,
      suppress_level: options.level ?? "warning",
      escalation_override: options.override ?? true,
      reason: "",
      ...options.data
    }
  })

export const pattern = (
  options: { source?: string; conditions?: Record<string, unknown>; effect?: string; description?: string } = {}
): Entry.Entry =>
  base("pattern", options.source ?? "", {
    data: {
      description: options.description ?? "a learned pattern",
      conditions: options.conditions ?? {},
      effect: options.effect ?? "",
      learned_from: "conversation"
    }
  })

export const intention = (
  goal: string,
  options: { source?: string; deliverIn?: number; state?: string; urgency?: string; tags?: ReadonlyArray<string> } = {}
): Entry.Entry =>
  base("intention", options.source ?? "personal", {
    tags: [...(options.tags ?? [])],
    data: {
      goal,
      state: options.state ?? "pending",
      urgency: options.urgency ?? "normal",
      learned_from: "conversation",
      ...(options.deliverIn === undefined ? {} : { deliver_at: ahead(options.deliverIn) })
    }
  })

export const snapshot = (parts: Partial<Collator.Snapshot> = {}): Collator.Snapshot => ({
  statuses: [],
  alerts: [],
  suppressions: [],
  patterns: [],
  intentions: [],
  ...parts
})
