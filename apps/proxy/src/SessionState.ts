/**
 * What the proxy remembers about one conversation between requests: every effort it has seen, when each was last
 * referenced, which are collapsed, and running totals. Plain JSON, so the PostgreSQL store keeps it as one row.
 *
 * @since 0.1.0
 */

/**
 * One effort's state.
 *
 * @category models
 * @since 0.1.0
 */
export interface EffortState {
  readonly id: string
  /** The message index it lives at. */
  readonly message: number
  /** `tool_result` or `text`. */
  readonly kind: "tool_result" | "text"
  /** The turn it appeared in. */
  readonly turn: number
  /** Tokens of its whole content. */
  readonly tokens: number
  /** The turn it was last referenced in (its own turn at first). */
  readonly lastReferenced: number
  /** Whether it is collapsed to its gist. */
  readonly collapsed: boolean
  /** Why it was last collapsed. */
  readonly reason?: "decay" | "budget" | undefined
  /** The turn it was last collapsed in. */
  readonly collapsedAt?: number | undefined
  /** Restores through the `heed_expand` tool and through references. */
  readonly expands: number
  readonly restores: number
}

/**
 * A session's state.
 *
 * @category models
 * @since 0.1.0
 */
export interface SessionState {
  readonly id: string
  /** The current turn of the last request seen. */
  readonly turn: number
  /** Messages already scanned for references (only later ones are scanned next time). */
  readonly scanned: number
  /** Efforts by id. */
  readonly efforts: Readonly<Record<string, EffortState>>
  readonly requests: number
  /** Totals over the session's requests: tokens the client sent, and tokens that went upstream. */
  readonly tokensIn: number
  readonly tokensSent: number
  readonly updatedAt: number
}

/**
 * A new session's state.
 *
 * @category constructors
 * @since 0.1.0
 */
export const empty = (id: string): SessionState => ({
  id,
  turn: 0,
  scanned: 0,
  efforts: {},
  requests: 0,
  tokensIn: 0,
  tokensSent: 0,
  updatedAt: 0
})

/**
 * The summary `GET /sessions/{id}` answers with: each effort's state and size, and tokens saved so far.
 *
 * @category getters
 * @since 0.1.0
 */
export const describe = (state: SessionState) => {
  const efforts = Object.values(state.efforts).sort((a, b) => a.message - b.message || (a.id < b.id ? -1 : 1))
  return {
    id: state.id,
    turn: state.turn,
    requests: state.requests,
    tokens_in: state.tokensIn,
    tokens_sent: state.tokensSent,
    tokens_saved: state.tokensIn - state.tokensSent,
    collapsed: efforts.filter((effort) => effort.collapsed).length,
    efforts: efforts.map((effort) => ({
      id: effort.id,
      kind: effort.kind,
      message: effort.message,
      turn: effort.turn,
      tokens: effort.tokens,
      state: effort.collapsed ? "collapsed" : "whole",
      last_referenced_turn: effort.lastReferenced,
      ...(effort.reason === undefined ? {} : { collapse_reason: effort.reason, collapsed_at_turn: effort.collapsedAt }),
      expands: effort.expands,
      restores: effort.restores
    }))
  }
}
