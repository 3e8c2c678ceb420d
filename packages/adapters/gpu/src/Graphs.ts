/**
 * ONNX graphs for the `LensScorer` and `Gister` ports, built in code (nothing is downloaded) or loaded from
 * a local `.onnx` file (e.g. exported from PyTorch) and checked against the port's inputs and outputs.
 *
 * **The port contract** (float32 everywhere; `batch` lets several working-context variants run at once):
 *
 * - lens graphs take `entries [batch, entries, dim]`, `levels [batch, entries]`, `positions [batch, entries]`
 *   and `tail [batch, tail, dim]`, and return `scores [batch, entries]` in [-1, 1];
 * - gist graphs take `blocks [batch, block, dim]` and return `gists [batch, dim]`.
 *
 * @since 0.1.0
 */

import { readFile, stat } from "node:fs/promises"
import type { LensScorer } from "@heed/allocator"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { InferenceSession } from "onnxruntime-node"
import { type AttentionLensOptions, type AttentionLensWeights, weights as seededWeights } from "./AttentionLens.ts"
import { DataType, type ElemType, encode, GraphBuilder, type ValueInfo } from "./internal/onnx.ts"
import { open } from "./internal/session.ts"

/**
 * Which port a graph implements.
 *
 * @category models
 * @since 0.1.0
 */
export type GraphKind = "lens" | "gist"

/**
 * A model ready for a session: its port, a name for logs, the ONNX bytes, and its embedding width when the
 * graph fixes one (`undefined`: any width).
 *
 * @category models
 * @since 0.1.0
 */
export interface Graph {
  readonly kind: GraphKind
  readonly name: string
  readonly bytes: Uint8Array
  readonly dim: number | undefined
}

/**
 * A graph that cannot be built, read or used for its port (bad options, unreadable or truncated file, wrong
 * inputs or outputs). `path` names the file where there is one.
 *
 * @category errors
 * @since 0.1.0
 */
export class GraphError extends Schema.TaggedError<GraphError>()("GraphError", {
  message: Schema.String,
  path: Schema.optional(Schema.String)
}) {}

/**
 * The input and output names of each port, in the order the adapters feed them.
 *
 * @category models
 * @since 0.1.0
 */
export const ports = {
  lens: { inputs: ["entries", "levels", "positions", "tail"], outputs: ["scores"] },
  gist: { inputs: ["blocks"], outputs: ["gists"] }
} as const

const OPSET = 17

const lensIO = (dim: number | string) => ({
  inputs: [
    { name: "entries", type: "float", shape: ["batch", "entries", dim] },
    { name: "levels", type: "float", shape: ["batch", "entries"] },
    { name: "positions", type: "float", shape: ["batch", "entries"] },
    { name: "tail", type: "float", shape: ["batch", "tail", dim] }
  ] satisfies ReadonlyArray<ValueInfo>,
  outputs: [{ name: "scores", type: "float", shape: ["batch", "entries"] }] satisfies ReadonlyArray<ValueInfo>
})

const checkDim = (dim: number | undefined): void => {
  if (dim !== undefined && !(Number.isInteger(dim) && dim >= 1)) {
    throw new GraphError({ message: `dim must be an integer >= 1 when given, got ${dim}` })
  }
}

const cast = (g: GraphBuilder, x: string, to: ElemType) => g.op("Cast", [x], [{ name: "to", int: DataType[to] }])

/** `r = position / max(0, max positions)` per variant, or 1 when every position is 0 (the reference's rule). */
const recency = (g: GraphBuilder, positions: string, type: "float" | "double"): string => {
  const zero = g.scalar(type, 0)
  const last = g.op("Max", [g.op("ReduceMax", [positions], [{ name: "axes", ints: [1] }]), zero])
  return g.op("Where", [g.op("Greater", [last, zero]), g.op("Div", [positions, last]), g.scalar(type, 1)])
}

/**
 * The legality mask: LOD0 cannot expand (`u ≤ 0`), the top level cannot collapse (`u ≥ 0`). `Where` rather
 * than `Min`/`Max`, so a NaN score stays NaN and the adapter can report the bad input.
 */
const legal = (g: GraphBuilder, u: string, levels: string, maxLevel: number, type: "float" | "double"): string => {
  const zero = g.scalar(type, 0)
  const lowest = g.op("LessOrEqual", [levels, g.scalar("float", 0)])
  const highest = g.op("GreaterOrEqual", [levels, g.scalar("float", maxLevel)])
  const capped = g.op("Where", [g.op("And", [lowest, g.op("Greater", [u, zero])]), zero, u])
  return g.op("Where", [g.op("And", [highest, g.op("Less", [capped, zero])]), zero, capped])
}

const finite = (name: string, value: number | undefined, fallback: number): number => {
  const v = value ?? fallback
  if (!Number.isFinite(v)) throw new GraphError({ message: `${name} must be a finite number, got ${value}` })
  return v
}

/**
 * The allocator's analytic reference scorer (`analyticScore` in `@heed/allocator`) as a graph:
 * `u = tanh(sharpness · cos(x, Σ tail) + recencyWeight · (2r − 1) − levelWeight · level / maxLevel)`,
 * legality-masked.
 *
 * **Precision.** The two passes over the `N × dim` entries (the dot product with the tail sum, and the sum of
 * squares) run in float32, on the entries as given: casting them to float64 first writes a copy twice their
 * size and runs float64 kernels over it, which made the graph slower than the TypeScript reference. Everything else (the tail sum, the norms, the cosine, recency, level terms, tanh and the mask) is
 * float64, as in the reference. The float32 reductions differ from the reference's float64 ones by about
 * 1e-7 relative, so scores agree within 1e-6 (the parity suite holds them to 1e-5 up to d = 768) and the
 * focus loop's decisions are the same; only statistics of the scores (such as `score_mean` in its events) move
 * in the 7th digit. Entries whose squares overflow float32 (|x| above about 1e19) give a NaN score, which the
 * adapter reports. `precision: "float64"` casts the entries to float64 first, as the reference reads them:
 * scores then equal the reference's to the last float32 bit in practice, at about twice the cost.
 * Non-finite input propagates to a NaN score. Throws a {@link GraphError} for bad options.
 *
 * @category constructors
 * @since 0.1.0
 */
export const analyticLens = (
  options: LensScorer.AnalyticOptions & {
    readonly dim?: number | undefined
    readonly precision?: "float32" | "float64" | undefined
  } = { maxLevel: 2 }
): Graph => {
  const maxLevel = finite("maxLevel", options.maxLevel, 2)
  const sharpness = finite("sharpness", options.sharpness, 4)
  const recencyWeight = finite("recencyWeight", options.recencyWeight, 0.5)
  const levelWeight = finite("levelWeight", options.levelWeight, 0.25)
  checkDim(options.dim)
  const precision = options.precision ?? "float32"
  if (precision !== "float32" && precision !== "float64") {
    throw new GraphError({ message: `precision must be "float32" or "float64", got ${JSON.stringify(precision)}` })
  }
  const g = new GraphBuilder()
  const entries = precision === "float64" ? cast(g, "entries", "double") : "entries"
  const bulk = precision === "float64" ? "double" : "float"
  // The tail sum is small (tail × dim), so it is summed in float64 like the reference's.
  const q = g.op("ReduceSum", [cast(g, "tail", "double"), g.ints([1])], [{ name: "keepdims", int: 1 }])
  const qBulk = bulk === "double" ? q : cast(g, q, "float")
  const dotBulk = g.op("MatMul", [entries, g.op("Transpose", [qBulk], [{ name: "perm", ints: [0, 2, 1] }])])
  const toDouble = (x: string) => (bulk === "double" ? x : cast(g, x, "double"))
  const dot = toDouble(g.op("Squeeze", [dotBulk, g.ints([2])]))
  const sumSquares = (x: string) =>
    g.op(
      "ReduceSumSquare",
      [x],
      [
        { name: "axes", ints: [2] },
        { name: "keepdims", int: 0 }
      ]
    )
  const entryNorm = g.op("Sqrt", [toDouble(sumSquares(entries))])
  const denominator = g.op("Mul", [entryNorm, g.op("Sqrt", [sumSquares(q)])])
  // A zero vector has dot 0, so 0 / tiny = 0: the reference's "zero vectors have cosine 0".
  const cosine = g.op("Div", [dot, g.op("Max", [denominator, g.scalar("double", 1e-300)])])
  const r = recency(g, cast(g, "positions", "double"), "double")
  const levelTerm =
    maxLevel > 0 ? g.op("Div", [cast(g, "levels", "double"), g.scalar("double", maxLevel)]) : g.scalar("double", 0)
  const raw = g.op("Sub", [
    g.op("Add", [
      g.op("Mul", [g.scalar("double", sharpness), cosine]),
      g.op("Mul", [
        g.scalar("double", recencyWeight),
        g.op("Sub", [g.op("Mul", [g.scalar("double", 2), r]), g.scalar("double", 1)])
      ])
    ]),
    g.op("Mul", [g.scalar("double", levelWeight), levelTerm])
  ])
  const u = legal(g, g.op("Tanh", [raw]), "levels", maxLevel, "double")
  g.opInto("scores", "Cast", [u], [{ name: "to", int: DataType.float }])
  const io = lensIO(options.dim ?? "dim")
  const bytes = encode({
    name: "heed_analytic_lens",
    opset: OPSET,
    nodes: g.nodes,
    initializers: g.initializers,
    ...io
  })
  return {
    kind: "lens",
    name: precision === "float64" ? "analytic-lens float64" : "analytic-lens",
    bytes,
    dim: options.dim
  }
}

/**
 * `attended + E[level] + (2r − 1) · w_r` of the attention head as one batched MatMul: the softmax weights, a
 * one-hot level and (2r − 1) side by side, times v, the level embeddings and w_r stacked. Four passes over the
 * `[entries, lensDim]` activations (a Gather, a Mul and two Adds) become four more columns of one GEMM.
 */
const attendedWithFeatures = (g: GraphBuilder, w: AttentionLensWeights, attention: string, v: string): string => {
  const { lensDim: width, maxLevel } = w
  const levelIndex = cast(g, g.op("Clip", ["levels", g.scalar("float", 0), g.scalar("float", maxLevel)]), "int64")
  const levelIds = g.constant(
    "int64",
    [maxLevel + 1],
    Array.from({ length: maxLevel + 1 }, (_, i) => i)
  )
  const oneHot = cast(g, g.op("Equal", [g.op("Unsqueeze", [levelIndex, g.ints([2])]), levelIds]), "float")
  const r = g.op("Sub", [g.op("Mul", [recency(g, "positions", "float"), g.scalar("float", 2)]), g.scalar("float", 1)])
  const features = g.op("Concat", [attention, oneHot, g.op("Unsqueeze", [r, g.ints([2])])], [{ name: "axis", int: 2 }])
  const extra = new Float32Array((maxLevel + 2) * width)
  extra.set(w.levelEmbedding)
  extra.set(w.recency, (maxLevel + 1) * width)
  // [batch, 1, 1], so the constant rows are repeated for each variant.
  const perVariant = g.op(
    "Concat",
    [g.op("Slice", [g.op("Shape", ["tail"]), g.ints([0]), g.ints([1])]), g.ints([1, 1])],
    [{ name: "axis", int: 0 }]
  )
  const rows = g.op("Expand", [g.constant("float", [1, maxLevel + 2, width], extra), perVariant])
  return g.op("MatMul", [features, g.op("Concat", [v, rows], [{ name: "axis", int: 1 }])])
}

/**
 * The LensNet-shaped attention head of `AttentionLens` as a float32 graph, from seeded options or given
 * weights. Non-finite input is made to reach the score as NaN (a zero-weighted sum of the query row is added
 * to the logit), so the adapter can report it. Throws a {@link GraphError} for bad sizes.
 *
 * @category constructors
 * @since 0.1.0
 */
export const attentionLens = (options: AttentionLensOptions | AttentionLensWeights): Graph => {
  let w: AttentionLensWeights
  try {
    w = "query" in options ? options : seededWeights(options)
  } catch (error) {
    throw new GraphError({ message: error instanceof Error ? error.message : String(error) })
  }
  const { dim, lensDim: width, maxLevel } = w
  const g = new GraphBuilder()
  const matrix = (data: Float32Array, rows: number, cols: number) => g.constant("float", [rows, cols], data)
  const q = g.op("MatMul", ["entries", matrix(w.query, dim, width)])
  const k = g.op("MatMul", ["tail", matrix(w.key, dim, width)])
  const v = g.op("MatMul", ["tail", matrix(w.value, dim, width)])
  const logits = g.op("Mul", [
    g.op("MatMul", [q, g.op("Transpose", [k], [{ name: "perm", ints: [0, 2, 1] }])]),
    g.scalar("float", 1 / Math.sqrt(width))
  ])
  const attention = g.op("Softmax", [logits], [{ name: "axis", int: 2 }])
  const hidden = g.op("Tanh", [g.op("Add", [q, attendedWithFeatures(g, w, attention, v)])])
  const logit = g.op("Add", [
    g.op("Squeeze", [g.op("MatMul", [hidden, matrix(w.out, width, 1)]), g.ints([2])]),
    g.scalar("float", w.bias)
  ])
  // tanh(±∞) is finite, so an infinite input could otherwise end as a plausible score: 0 · Σq is 0 for a
  // finite row and NaN for a row holding ±∞ or NaN.
  const taint = g.op("Mul", [g.op("ReduceSum", [q, g.ints([2])], [{ name: "keepdims", int: 0 }]), g.scalar("float", 0)])
  const u = legal(g, g.op("Tanh", [g.op("Add", [logit, taint])]), "levels", maxLevel, "float")
  g.opInto("scores", "Identity", [u])
  const bytes = encode({
    name: "heed_attention_lens",
    opset: OPSET,
    nodes: g.nodes,
    initializers: g.initializers,
    ...lensIO(dim)
  })
  return { kind: "lens", name: `attention-lens d=${dim} lensDim=${width}`, bytes, dim }
}

/**
 * Mean-pool GistNet (MegaContext's `gistnet_type="mean"`, and the tree's fallback): each gist is the mean of
 * its block, computed in float64 like `meanPool` in `@heed/allocator`. Throws a {@link GraphError} for a bad
 * `dim`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const meanPoolGist = (options: { readonly dim?: number | undefined } = {}): Graph => {
  checkDim(options.dim)
  const g = new GraphBuilder()
  const mean = g.op(
    "ReduceMean",
    [cast(g, "blocks", "double")],
    [
      { name: "axes", ints: [1] },
      { name: "keepdims", int: 0 }
    ]
  )
  g.opInto("gists", "Cast", [mean], [{ name: "to", int: DataType.float }])
  const dim = options.dim ?? "dim"
  const bytes = encode({
    name: "heed_mean_pool_gist",
    opset: OPSET,
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: [{ name: "blocks", type: "float", shape: ["batch", "block", dim] }],
    outputs: [{ name: "gists", type: "float", shape: ["batch", dim] }]
  })
  return { kind: "gist", name: "mean-pool-gist", bytes, dim: options.dim }
}

/** The rank each port value must have. */
const ranks: Record<GraphKind, Record<string, number>> = {
  lens: { entries: 3, levels: 2, positions: 2, tail: 3, scores: 2 },
  gist: { blocks: 3, gists: 2 }
}

/** Where each port value carries the embedding width. */
const dimAxes: Record<GraphKind, Record<string, number>> = {
  lens: { entries: 2, tail: 2 },
  gist: { blocks: 2, gists: 1 }
}

type Metadata = InferenceSession.ValueMetadata

const contract = (kind: GraphKind): string =>
  kind === "lens"
    ? "a lens graph takes entries [batch, entries, dim], levels [batch, entries], positions [batch, entries] and tail [batch, tail, dim] (float32) and returns scores [batch, entries]"
    : "a gist graph takes blocks [batch, block, dim] (float32) and returns gists [batch, dim]"

/**
 * Checks a session's inputs and outputs against a port; returns the port and the fixed width, or what is
 * wrong. A model whose inputs name no port is described against both.
 */
const checkPort = (
  inputs: ReadonlyArray<Metadata>,
  outputs: ReadonlyArray<Metadata>
): { readonly kind: GraphKind; readonly dim: number | undefined } | string => {
  const names = inputs.map((m) => m.name)
  const kind: GraphKind | undefined = names.includes("entries") ? "lens" : names.includes("blocks") ? "gist" : undefined
  if (kind === undefined) {
    return `its inputs [${names.join(", ")}] match no port: ${contract("lens")}; ${contract("gist")}`
  }
  const problems: Array<string> = []
  const widths = new Set<number>()
  const byName = new Map([...inputs, ...outputs].map((m) => [m.name, m]))
  for (const name of [...ports[kind].inputs, ...ports[kind].outputs]) {
    const m = byName.get(name)
    if (m === undefined) {
      problems.push(`${name} is missing`)
    } else if (!m.isTensor || m.type !== "float32") {
      problems.push(`${name} must be a float32 tensor, got ${m.isTensor ? m.type : "a non-tensor"}`)
    } else if (m.shape.length > 0 && m.shape.length !== ranks[kind][name]) {
      problems.push(`${name} must have ${ranks[kind][name]} dimensions, got [${m.shape.join(", ")}]`)
    } else {
      const axis = dimAxes[kind][name]
      const size = axis === undefined ? undefined : m.shape[axis]
      if (typeof size === "number") widths.add(size)
    }
  }
  const extra = names.filter((name) => !(ports[kind].inputs as ReadonlyArray<string>).includes(name))
  if (extra.length > 0) problems.push(`it has inputs the port does not feed: ${extra.join(", ")}`)
  if (widths.size > 1) problems.push(`its embedding widths disagree: ${[...widths].join(" vs ")}`)
  if (problems.length > 0) return `${problems.join("; ")} (${contract(kind)})`
  return { kind, dim: widths.size === 1 ? [...widths][0] : undefined }
}

/**
 * Opens `bytes` on the CPU provider and checks its inputs and outputs against the ports.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromBytes = (bytes: Uint8Array, name = "onnx model"): Effect.Effect<Graph, GraphError> =>
  Effect.scoped(open(bytes, { requested: "cpu", threads: 1 })).pipe(
    Effect.mapError(
      (error) =>
        new GraphError({
          message: `${name} is not a usable ONNX model: ${error.attempts[0]?.message ?? error.message}`
        })
    ),
    Effect.flatMap((session) => {
      const checked = checkPort(session.metadata.inputs, session.metadata.outputs)
      return typeof checked === "string"
        ? Effect.fail(new GraphError({ message: `${name} does not fit a port: ${checked}` }))
        : Effect.succeed<Graph>({ kind: checked.kind, name, bytes, dim: checked.dim })
    })
  )

/** protobuf messages cannot exceed 2 GiB; larger models need external data files, which are not supported. */
const MAX_MODEL_BYTES = 2 ** 31 - 1

/**
 * Loads a local `.onnx` file (e.g. from `torch.onnx.export`) and checks it against the ports: its input names
 * pick the port (`entries`, `levels`, `positions`, `tail` → lens; `blocks` → gist), then every input and
 * output must be a float32 tensor of the port's rank with one consistent embedding width. A missing,
 * unreadable, truncated or mis-shaped file fails with a {@link GraphError} saying which and why.
 *
 * @category constructors
 * @since 0.1.0
 */
export const load = (path: string): Effect.Effect<Graph, GraphError> =>
  Effect.tryPromise({
    try: async () => {
      const info = await stat(path)
      if (!info.isFile()) throw new Error("not a regular file")
      if (info.size > MAX_MODEL_BYTES) throw new Error(`${info.size} bytes is over the 2 GiB protobuf limit`)
      return new Uint8Array(await readFile(path))
    },
    catch: (error) =>
      new GraphError({
        message: `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`,
        path
      })
  }).pipe(
    Effect.flatMap((bytes) => fromBytes(bytes, path)),
    Effect.mapError((error) => (error.path === undefined ? new GraphError({ message: error.message, path }) : error))
  )
