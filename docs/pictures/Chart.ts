// Renders Vega and Vega-Lite specs to standalone SVG in Node, with one shared look. Vega's SVG renderer needs no
// browser and no canvas; text uses the reader's sans-serif font, so a picture loads no external resource.
import * as vega from "vega"
import * as vegaLite from "vega-lite"

/** The colours of the four attention bands, the salience scale and the two decay series, shared by every picture. */
export const palette = {
  HOT: "#d62728",
  WARM: "#ff7f0e",
  COOL: "#1f77b4",
  IDLE: "#7f7f7f",
  accent: "#2ca02c",
  muted: "#bdbdbd"
} as const

const config = {
  font: "sans-serif",
  background: "white",
  padding: 8,
  axis: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: "normal" },
  legend: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: "normal" },
  title: { fontSize: 14, fontWeight: "bold", anchor: "start" }
} as const

// `./heed docs` treats warnings as errors: a warning from Vega or Vega-Lite (a conflicting scale, an unknown field)
// means the picture is not what its code says, so it fails the build instead of scrolling past.
const strictLogger = (source: string) => {
  const fail = (...args: ReadonlyArray<unknown>) => {
    throw new Error(`${source}: ${args.join(" ")}`)
  }
  const logger = {
    level: (_?: number) => logger,
    error: fail,
    warn: fail,
    info: () => logger,
    debug: () => logger
  }
  return logger as unknown as vega.LoggerInterface
}

/** Renders a Vega spec (used directly where Vega-Lite has no layout, such as trees). */
export const renderVega = async (spec: vega.Spec): Promise<string> => {
  const view = new vega.View(vega.parse(spec, config), { renderer: "none", logger: strictLogger("vega") })
  try {
    return await view.toSVG()
  } finally {
    view.finalize()
  }
}

/** Compiles a Vega-Lite spec to Vega and renders it. */
export const renderVegaLite = (spec: vegaLite.TopLevelSpec): Promise<string> =>
  renderVega(vegaLite.compile(spec, { logger: strictLogger("vega-lite") }).spec)
