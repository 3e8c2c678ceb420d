/**
 * Preloaded into the benchmarked server (`node --import ./bench/memoryProbe.ts`): on SIGUSR2 it writes the process's
 * memory to the file named by HEED_BENCH_MEMORY_OUT, as one JSON object in MB:
 * - rss, heap_used, heap_total, external, array_buffers (each `_mb`): `process.memoryUsage()`;
 * - wasm_mb: the linear memories of live WebAssembly instances (PGlite's), as allocated (RSS counts only touched pages);
 * - wasm_rss_mb: the resident part of those memories, from /proc/self/smaps (each is one mapping of its own size).
 * The server's code is unchanged: the probe only wraps the WebAssembly.Memory constructor to keep weak references.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs"

// WebAssembly's types are not in this project's lib; the constructor and `buffer` are all the probe touches.
interface WasmMemory {
  readonly buffer: ArrayBuffer
}
const wasm = (globalThis as unknown as { WebAssembly: { Memory: new (descriptor: unknown) => WasmMemory } }).WebAssembly
const memories: Array<WeakRef<WasmMemory>> = []
wasm.Memory = new Proxy(wasm.Memory, {
  construct: (target, args: [unknown]) => {
    const memory = new target(...args)
    memories.push(new WeakRef(memory))
    return memory
  }
})

const mb = (bytes: number) => Math.round(bytes / 1048576)

/** Resident kB of each mapping whose size is `bytes` exactly (a wasm memory's accessible part is its own mapping). */
const residentOfMappings = (sizes: ReadonlySet<number>) => {
  let resident = 0
  let current: number | undefined
  for (const line of readFileSync("/proc/self/smaps", "utf8").split("\n")) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line)
    if (header !== null) {
      const size = Number.parseInt(header[2]!, 16) - Number.parseInt(header[1]!, 16)
      current = sizes.has(size) ? size : undefined
    } else if (current !== undefined && line.startsWith("Rss:")) {
      resident += Number(/(\d+)/.exec(line)?.[1] ?? 0) * 1024
    }
  }
  return resident
}

process.on("SIGUSR2", () => {
  const usage = process.memoryUsage()
  const live = memories.flatMap((ref) => {
    const memory = ref.deref()
    return memory === undefined ? [] : [memory.buffer.byteLength]
  })
  const report = {
    rss_mb: mb(usage.rss),
    heap_used_mb: mb(usage.heapUsed),
    heap_total_mb: mb(usage.heapTotal),
    external_mb: mb(usage.external),
    array_buffers_mb: mb(usage.arrayBuffers),
    wasm_mb: mb(live.reduce((sum, bytes) => sum + bytes, 0)),
    wasm_rss_mb: mb(residentOfMappings(new Set(live)))
  }
  const out = process.env.HEED_BENCH_MEMORY_OUT
  if (out === undefined) return
  // Written whole, then renamed: the bench polls for the file and must never read it half-written.
  writeFileSync(`${out}.tmp`, JSON.stringify(report))
  renameSync(`${out}.tmp`, out)
})
