import { defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"

export default defineConfig({
  ssr: { resolve: { conditions: [...defaultServerConditions, "@heed/source"] } },
  test: {
    include: ["test/**/*.test.ts"],
    // fast-check draws from one fixed seed (HEED_FC_SEED picks another)
    setupFiles: ["../../../scripts/fast-check-seed.ts"]
  }
})
