import { defineConfig } from "tsup"

// The compiled `heed-bridge` bin (dist/main.js) and its modules; the workspace packages it imports resolve to their own
// builds (`./heed build` builds them all), so it runs without type stripping and loads far less than the sources.
export default defineConfig({
  entry: ["src/*.ts"],
  format: ["esm"],
  dts: false,
  sourcemap: true,
  clean: true,
  splitting: true,
  treeshake: false,
  target: "node20",
  tsconfig: "tsconfig.json",
  esbuildOptions: (options) => {
    options.platform = "node"
  }
})
