/**
 * What the ONNX layers share: their options, and starting a session for a port's graph.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { ExecutionProvider, fromConfig, OnnxSessionError } from "../ExecutionProvider.ts"
import { type Graph, GraphError, type GraphKind } from "../Graphs.ts"
import type { OnnxOptions } from "../OnnxOptions.ts"
import { open } from "./session.ts"

const portName = { lens: "LensScorer", gist: "Gister" } as const

/** Resolves the options, checks the graph is for `kind`, and opens its session. */
export const start = Effect.fnUntraced(function* (kind: GraphKind, options: OnnxOptions, defaultGraph: () => Graph) {
  const { threads } = options
  if (threads !== undefined && !(Number.isInteger(threads) && threads >= 1)) {
    return yield* new OnnxSessionError({ message: `threads must be an integer >= 1, got ${threads}`, attempts: [] })
  }
  if (options.executionProvider !== undefined && !Schema.is(ExecutionProvider)(options.executionProvider)) {
    return yield* new OnnxSessionError({
      message: `executionProvider must be one of cuda, webgpu, cpu, auto; got "${options.executionProvider}"`,
      attempts: []
    })
  }
  const graph =
    options.graph === undefined
      ? yield* Effect.try({ try: defaultGraph, catch: (error) => error as GraphError })
      : Effect.isEffect(options.graph)
        ? yield* options.graph
        : options.graph
  if (graph.kind !== kind) {
    return yield* new GraphError({
      message: `${graph.name} is a ${graph.kind} graph, but the ${portName[kind]} needs a ${kind} graph`
    })
  }
  const requested = options.executionProvider ?? (yield* fromConfig)
  const session = yield* open(graph.bytes, { requested, fallback: options.fallback, threads })
  return { graph, session }
})

/** A layer providing one service, built in the layer's scope, under its own key and the allocator port it implements. */
export const layerAsPort = <I, S extends P, IP, P, E>(
  key: Context.Key<I, S>,
  port: Context.Key<IP, P>,
  make: Effect.Effect<S, E, Scope.Scope>
): Layer.Layer<I | IP, E> =>
  Layer.effectContext(Effect.map(make, (service) => Context.make(key, service).pipe(Context.add(port, service))))
