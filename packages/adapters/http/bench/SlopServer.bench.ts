/**
 * SlopServer fan-out: the latency from a provider write (`setTree`, no coalescing) to the patch arriving at 1, 100
 * and 1,000 WebSocket subscribers (p50/p99 over every subscriber of every write), and the memory each subscriber adds:
 * `heap_kb` on the server's thread (its V8 heap: connection, subscription, queues), `rss_kb` for the whole process
 * (the server's sockets and buffers, and the client side in the worker too). The subscribers run in a worker thread
 * (bench/subscribers.ts), so the server thread does only the server's work; both share this machine's cores.
 */

import { getHeapStatistics } from "node:v8"
import { Worker } from "node:worker_threads"
import { Bench } from "@heed/bench"
import type { Node } from "@heed/state-tree"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { serveProvider, syncedProvider } from "../test/support.ts"

const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
const round = (value: number) => Number(value.toPrecision(4))
const now = () => performance.timeOrigin + performance.now()
const gc = () => (globalThis as { gc?: () => void }).gc?.()

// An awareness-like tree: 20 sources with 5 alerts each (about 120 nodes); each write changes one alert.
const tree = (step: number): Node.Node => ({
  id: "root",
  type: "root",
  children: [
    {
      id: "sources",
      type: "collection",
      children: Array.from({ length: 20 }, (_, s) => ({
        id: `source-${s}`,
        type: "status",
        properties: { status: "ok", last_report: "2026-01-01T00:00:00Z" },
        meta: { salience: 0.4 },
        children: Array.from({ length: 5 }, (_, a) => {
          const hot = (s * 5 + a) % 100 === step % 100
          return {
            id: `alert-${a}`,
            type: "notification",
            properties: { level: hot ? "critical" : "warning", message: hot ? `disk at ${90 + (step % 10)}%` : "ok" },
            meta: { salience: hot ? 1 : 0.3, ...(hot ? { urgency: "critical" as const } : {}) }
          }
        })
      }))
    }
  ]
})

const scope = Effect.runSync(Scope.make())
const inScope = <A, E>(effect: Effect.Effect<A, E, Scope.Scope>) => Effect.runPromise(Scope.provide(effect, scope))
const provider = await inScope(syncedProvider({ coalesceMs: 0 }))
let step = 0
await Effect.runPromise(provider.setTree(tree(step)))
const url = await inScope(serveProvider(provider, { maxConnections: 5000 }))

const fanOut = async (count: number, writes: number) => {
  const worker = new Worker(new URL("./subscribers.ts", import.meta.url), { workerData: { url, count } })
  const rounds = new Map<number, Float64Array>()
  const seen = new Set<string>()
  let wake: (() => void) | undefined
  worker.on("message", (message: { type: string; k?: number; times?: Float64Array }) => {
    if (message.type === "round") rounds.set(message.k!, message.times!)
    seen.add(message.type)
    wake?.()
  })
  const until = async (holds: () => boolean) => {
    while (!holds()) await new Promise<void>((resolve) => (wake = resolve))
  }
  // memory is measured with the worker started and before and after its clients connect
  await until(() => seen.has("started"))
  gc()
  const heapBefore = getHeapStatistics().used_heap_size
  const rssBefore = process.memoryUsage().rss
  worker.postMessage("connect")
  await until(() => seen.has("ready"))
  gc()
  const heap = (getHeapStatistics().used_heap_size - heapBefore) / count
  const rss = (process.memoryUsage().rss - rssBefore) / count
  const latencies: Array<number> = []
  for (let k = 0; k < writes; k++) {
    const written = now()
    await Effect.runPromise(provider.setTree(tree(++step)))
    await until(() => rounds.has(k))
    for (const arrived of rounds.get(k)!) latencies.push(arrived - written)
  }
  await worker.terminate()
  latencies.sort((a, b) => a - b)
  return {
    writes,
    p50_ms: round(quantile(latencies, 0.5)),
    p99_ms: round(quantile(latencies, 0.99)),
    max_ms: round(latencies.at(-1)!),
    heap_kb_per_subscriber: round(heap / 1024),
    rss_kb_per_subscriber: round(rss / 1024)
  }
}

const rows = []
for (const [count, writes] of [
  [1, 300],
  [100, 100],
  [1000, 40]
] as const) {
  rows.push({
    name: `write → patch at ${count} subscriber${count === 1 ? "" : "s"}`,
    figures: await fanOut(count, writes)
  })
}
Bench.record("SlopServer fan-out (coalesceMs 0, ~120-node tree, one subscription per connection)", rows)
await Effect.runPromise(Scope.close(scope, Exit.void))
