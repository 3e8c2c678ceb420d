/** Incremental briefings on PGlite: 3,000 random histories of 12 steps (see utils/histories.ts). */
import { historiesSuite } from "./utils/histories.ts"
import { backends } from "./utils/shared.ts"

for (const backend of await backends("histories_pglite"))
  if (backend.kind === "pglite") historiesSuite(backend, 3000, 12)
