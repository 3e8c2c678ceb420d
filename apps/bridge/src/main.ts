/**
 * `heed-bridge`'s entry point (`bin/heed-bridge`, or `node --conditions=@heed/source src/main.ts` in the repository).
 * With `HEED_OPTIMIZE_FOR_SIZE=1` it first turns on V8's `--optimize-for-size` (a smaller resident set for some CPU,
 * as the awareness server offers); the flag must be set before the program's modules load, hence the dynamic import.
 *
 * @since 0.1.0
 */
import { setFlagsFromString } from "node:v8"

const optIn = process.env.HEED_OPTIMIZE_FOR_SIZE
if (optIn === "1" || optIn === "true") setFlagsFromString("--optimize-for-size")

await import("./Program.ts")
