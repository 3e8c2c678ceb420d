import { defineConfig } from "vitest/config"

// Packing and installing from the registry takes a while per package; the tests share one pack of everything.
export default defineConfig({
  test: { include: ["test/**/*.test.ts"], testTimeout: 240_000, hookTimeout: 600_000 }
})
