/**
 * The subscribers of SlopServer.bench.ts, in a worker thread so that their work does not run on the server's thread.
 * Once started and asked to, connects `count` WebSocket clients that subscribe to the whole tree, then reports, for each patch number k, when
 * every client has received its k-th patch, with each client's arrival time (ms since the epoch, microsecond
 * resolution, comparable with the main thread's `performance.timeOrigin + performance.now()`).
 */
import { parentPort, workerData } from "node:worker_threads"
import { WebSocket } from "ws"

const { url, count } = workerData as { readonly url: string; readonly count: number }
const now = () => performance.timeOrigin + performance.now()

// arrivals[k][i]: when client i received its (k + 1)-th patch
const arrivals: Array<Float64Array> = []
const received = new Int32Array(count)
const complete = new Int32Array(1 << 16)

const connect = (i: number) =>
  new Promise<void>((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.on("error", reject)
    ws.on("open", () => ws.send(JSON.stringify({ type: "subscribe", id: "s", depth: -1 })))
    ws.on("message", (data: Buffer) => {
      // the frame's start says what it is: no need to parse 1,000 copies of a patch on this thread
      const head = data.subarray(0, 24).toString()
      if (head.startsWith('{"type":"snapshot"')) return resolve()
      if (!head.startsWith('{"type":"patch"')) return
      const k = received[i]!++
      const row = arrivals[k] ?? new Float64Array(count)
      arrivals[k] = row
      row[i] = now()
      if (++complete[k]! === count) parentPort!.postMessage({ type: "round", k, times: row })
    })
  })

// started: the main thread measures its memory now, then asks for the connections
parentPort!.once("message", async () => {
  for (let i = 0; i < count; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => connect(i + j)))
  }
  parentPort!.postMessage({ type: "ready" })
})
parentPort!.postMessage({ type: "started" })
