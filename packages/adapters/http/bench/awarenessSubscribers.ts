/**
 * The SLOP subscribers of Edge.bench.ts, in a worker thread so that their work does not run on the bench's thread.
 * Connects `count` WebSocket clients to the awareness server's `/slop`, each subscribed to the whole tree; after
 * `{ expect: token, k }`, reports when each client first received a patch carrying `token` (the message of the
 * REST write being timed), as ms since the epoch comparable with the main thread's
 * `performance.timeOrigin + performance.now()`.
 */
import { parentPort, workerData } from "node:worker_threads"
import { WebSocket } from "ws"

const { url, count } = workerData as { readonly url: string; readonly count: number }
const now = () => performance.timeOrigin + performance.now()

let expected: Buffer | undefined
let round = -1
let arrived = 0
const times = new Float64Array(count)

const connect = (i: number) =>
  new Promise<void>((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.on("error", reject)
    ws.on("open", () => ws.send(JSON.stringify({ type: "subscribe", id: "s", depth: -1 })))
    ws.on("message", (data: Buffer) => {
      if (data.subarray(0, 24).toString().startsWith('{"type":"snapshot"')) return resolve()
      if (expected === undefined || times[i] !== 0 || !data.includes(expected)) return
      times[i] = now()
      if (++arrived === count) parentPort!.postMessage({ type: "round", k: round, times: times.slice() })
    })
  })

parentPort!.on("message", async (message: { readonly type: string; readonly token?: string; readonly k?: number }) => {
  if (message.type === "expect") {
    expected = Buffer.from(message.token!)
    round = message.k!
    arrived = 0
    times.fill(0)
    parentPort!.postMessage({ type: "armed", k: round })
    return
  }
  for (let i = 0; i < count; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => connect(i + j)))
  }
  parentPort!.postMessage({ type: "ready" })
})
parentPort!.postMessage({ type: "started" })
