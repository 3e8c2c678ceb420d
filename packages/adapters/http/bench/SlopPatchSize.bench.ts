/**
 * The size of SLOP patches in the default format (the one SLOP's own consumer applies exactly), on the awareness
 * server's live tree at the size issue 28 measured (120 sources, 1,300 alerts): bytes of the patch one subscriber
 * receives and bytes all subscribers receive together, at 1, 100 and 1,000 subscribers, for one alert from a new
 * source, one new alert on a source and one acknowledged alert. The tree comes from apps/awareness
 * (`bench/slopPatchSizes.ts`, spawned there like Edge.bench.ts spawns the server); the bound it checks is also a test
 * (apps/awareness `SlopPatchSize.test.ts`: at most 10 KB for the new source's alert).
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Bench } from "@heed/bench"

const appDir = fileURLToPath(new URL("../../../../apps/awareness/", import.meta.url))
const run = spawnSync(process.execPath, ["--conditions=@heed/source", "bench/slopPatchSizes.ts"], {
  cwd: appDir,
  encoding: "utf8",
  stdio: ["ignore", "pipe", "inherit"],
  maxBuffer: 1 << 24
})
if (run.status !== 0) throw new Error(`apps/awareness/bench/slopPatchSizes.ts exited with ${run.status}`)
const rows = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as Array<{
  readonly name: string
  readonly figures: Readonly<Record<string, number>>
}>
Bench.record("SLOP patch sizes, default format (awareness tree: 120 sources, 1,300 alerts)", rows)
const over = rows.filter((row) => row.name.startsWith("new source") && !row.name.endsWith("unordered"))
for (const row of over) {
  if (row.figures.bytes_per_subscriber! > 10_000) {
    throw new Error(`${row.name}: ${row.figures.bytes_per_subscriber} bytes per subscriber, over the 10 KB bound`)
  }
}
