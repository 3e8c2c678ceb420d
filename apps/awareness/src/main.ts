#!/usr/bin/env node
/**
 * The awareness server's entry point (`heed-awareness`, or `node --conditions=@heed/source src/main.ts` in the
 * repository). A stdio session on an embedded data directory (`serve --stdio`) runs as a shared session
 * (`Session.ts`), which attaches to the process holding the folder and loads the program only when it must hold the
 * folder itself; every other command loads and runs the program (`Program.ts`). With `HEED_OPTIMIZE_FOR_SIZE=1` it
 * first turns on V8's `--optimize-for-size`.
 *
 * Why opt-in: the server's live heap is small (about 50 MB with 10k alerts), but V8 sizes its heap for speed and lets
 * the garbage of a burst of requests pile up to several times that until the process is idle for a few seconds (RSS
 * 530 MB right after writing 3k alerts on PGlite, 290 MB twelve seconds later). The flag keeps RSS near the settled
 * figure at all times, at a price: fresh briefings cost about 50% more CPU (a smaller young generation collects
 * more often), which doubled their p99 under 50 concurrent clients. The flag must be set before the program's
 * modules load (startup's own garbage counts too), hence this module and the dynamic imports.
 *
 * @since 0.1.0
 */
import { setFlagsFromString } from "node:v8"
import { sharedSessionOf } from "./internal/sharedSession.ts"

const optIn = process.env.HEED_OPTIMIZE_FOR_SIZE
if (optIn === "1" || optIn === "true") setFlagsFromString("--optimize-for-size")

const shared = sharedSessionOf(process.argv.slice(2), process.env)
if (shared === undefined) {
  await import("./Program.ts")
} else {
  const Session = await import("./Session.ts")
  process.exit(await Session.run(shared))
}
