#!/usr/bin/env node
/**
 * The awareness server's entry point (`heed-awareness`, or `node --conditions=@heed/source src/main.ts` in the
 * repository). With `HEED_OPTIMIZE_FOR_SIZE=1` it first turns on V8's `--optimize-for-size`; then it loads and runs
 * the program (`Program.ts`).
 *
 * Why opt-in: the server's live heap is small (about 50 MB with 10k alerts), but V8 sizes its heap for speed and lets
 * the garbage of a burst of requests pile up to several times that until the process is idle for a few seconds (RSS
 * 530 MB right after writing 3k alerts on PGlite, 290 MB twelve seconds later). The flag keeps RSS near the settled
 * figure at all times, at a price: fresh briefings cost about 50% more CPU (a smaller young generation collects
 * more often), which doubled their p99 under 50 concurrent clients. The flag must be set before the program's
 * modules load (startup's own garbage counts too), hence this module and the dynamic import.
 *
 * @since 0.1.0
 */
import { setFlagsFromString } from "node:v8"

const optIn = process.env.HEED_OPTIMIZE_FOR_SIZE
if (optIn === "1" || optIn === "true") setFlagsFromString("--optimize-for-size")

await import("./Program.ts")
