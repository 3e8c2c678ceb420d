import { Pipeline } from "../src/index.ts"
import { deepCopy, generate } from "./generate.ts"
const tree = generate(100_000)
const budgeted = { depth: 3, filter: { min_salience: 0.3 }, max_nodes: 200 } as const
let total = 0, cpu = 0, n = 0
for (let i = 0; i < 400; i++) {
  const fresh = deepCopy(tree)
  const c0 = process.cpuUsage(); const t0 = performance.now()
  Pipeline.optimize(fresh, budgeted)
  const t = performance.now() - t0; const c = process.cpuUsage(c0)
  if (i >= 5) { total += t; cpu += (c.user + c.system) / 1000; n++ }
}
console.log("fresh optimize 100k: wall ms", (total / n).toFixed(2), "cpu ms", (cpu / n).toFixed(2))
