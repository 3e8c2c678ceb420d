// Writes every picture of the docs site as SVG into the folder given as the first argument. `./heed docs` runs it
// before typedoc, so the guides always show what the current code does.
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as BandTimeline from "./BandTimeline.ts"
import * as DecayTokens from "./DecayTokens.ts"
import * as FocusRun from "./FocusRun.ts"
import * as PipelineTrees from "./PipelineTrees.ts"
import * as ProxyTokens from "./ProxyTokens.ts"

/** File name → the picture's generator. */
export const pictures: Readonly<Record<string, () => Promise<string>>> = {
  "band-timeline.svg": BandTimeline.svg,
  "decay-tokens.svg": DecayTokens.svg,
  "focus-run.svg": FocusRun.svg,
  "pipeline-trees.svg": PipelineTrees.svg,
  "proxy-tokens.svg": ProxyTokens.svg
}

const out = process.argv[2]
if (out === undefined) {
  console.error("usage: node --conditions=@heed/source docs/pictures/main.ts <output folder>")
  process.exit(2)
}
mkdirSync(out, { recursive: true })
for (const [name, render] of Object.entries(pictures)) {
  const started = performance.now()
  const svg = await render()
  writeFileSync(join(out, name), svg)
  console.log(
    `docs: picture ${name} (${(svg.length / 1024).toFixed(0)} KiB, ${Math.round(performance.now() - started)} ms)`
  )
}
