import { defineConfig } from "vite"

// The dashboard page: plain DOM and TypeScript, built into the app's dist/web (served at `/` by src/Dashboard.ts).
// Workspace packages resolve to their TypeScript sources, so the page never waits for their own builds.
export default defineConfig({
  root: import.meta.dirname,
  base: "/",
  publicDir: false,
  resolve: { conditions: ["@heed/source", "browser", "module", "import", "default"] },
  build: {
    outDir: "../dist/web",
    emptyOutDir: true,
    target: "es2022",
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: true
  }
})
