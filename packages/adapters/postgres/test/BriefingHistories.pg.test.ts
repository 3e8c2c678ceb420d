/**
 * Incremental briefings on a PostgreSQL server, where each replica reads the other's writes through the change log:
 * 3,000 random histories of 8 steps (see utils/histories.ts; a server round trip makes each step several times
 * dearer than on PGlite).
 */
import { historiesSuite } from "./utils/histories.ts"
import { backends } from "./utils/shared.ts"

for (const backend of await backends("histories_pg")) if (backend.kind === "pg") historiesSuite(backend, 3000, 8)
