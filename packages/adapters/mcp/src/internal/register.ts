/**
 * Registering a set of MCP items (resources, prompts) built on the awareness resolver.
 *
 * @since 0.1.0
 */

import type * as McpServer from "effect/ai/McpServer"
import * as Effect from "effect/Effect"
import { AwarenessResolver } from "../AwarenessResolver.ts"

/** Registers every item `make` builds with the resolver in context, each with the `McpServer` it is provided to. */
export const registerAll = <E, R>(
  make: (resolver: AwarenessResolver["Service"]) => ReadonlyArray<Effect.Effect<void, E, R>>
): Effect.Effect<void, E, McpServer.McpServer | AwarenessResolver | Exclude<R, McpServer.McpServer>> =>
  Effect.gen(function* () {
    const resolver = yield* AwarenessResolver
    const services = yield* Effect.context<McpServer.McpServer>()
    for (const registration of make(resolver)) {
      yield* Effect.provideContext(registration, services)
    }
  })
