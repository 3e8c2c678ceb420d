import { defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"

// Packing and installing from the registry takes a while per package; the tests share one pack of everything. The
// tests that use packages together import their sources (the @heed/source condition), as every package's tests do.
export default defineConfig({
  ssr: { resolve: { conditions: [...defaultServerConditions, "@heed/source"] } },
  test: { include: ["test/**/*.test.ts"], testTimeout: 240_000, hookTimeout: 600_000 }
})
