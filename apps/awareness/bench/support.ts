/**
 * What the awareness benches share: p50/p99 over raw samples, and a free loopback port for a spawned server.
 */
import { createServer } from "node:net"

const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
/** Four significant digits, as the bench tables print them. */
export const round = (ms: number) => Number(ms.toPrecision(4))

/** p50 and p99 of `samples` (milliseconds, four significant digits) and how many there were. */
export const stats = (samples: Array<number>) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return { p50_ms: round(quantile(sorted, 0.5)), p99_ms: round(quantile(sorted, 0.99)), samples: samples.length }
}

/** A port on 127.0.0.1 that was free a moment ago (the OS picks it). */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })
