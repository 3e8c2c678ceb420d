import { defineConfig } from "vitest/config"

// Lets `pnpm exec vitest` at the root run every package's tests in one process (handy in editors).
// `./heed test` runs them per package through turbo instead, so results are cached per package.
export default defineConfig({
  test: { projects: ["packages/core/*", "packages/adapters/*", "packages/test*", "apps/*"] }
})
