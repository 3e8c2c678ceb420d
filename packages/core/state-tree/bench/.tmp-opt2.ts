import { Pipeline } from "../src/index.ts"
import { deepCopy, generate } from "./generate.ts"
const tree = generate(100_000)
const budgeted = { depth: 3, filter: { min_salience: 0.3 }, max_nodes: 200 } as const
let t = 0, n = 0
for (let r = 0; r < 10; r++) {
  const copies = Array.from({ length: 40 }, () => deepCopy(tree))
  globalThis.gc?.()
  const t0 = performance.now()
  for (const c of copies) Pipeline.optimize(c, budgeted)
  t += performance.now() - t0; n += copies.length
}
console.log("ms/op", (t / n).toFixed(3))
