import { defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"

export default defineConfig({
  ssr: { resolve: { conditions: [...defaultServerConditions, "@heed/source"] } },
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["../../scripts/fast-check-seed.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
