/**
 * The shapes of the dashboard's two JSON reads (`GET /dashboard/briefing`, `GET /dashboard/view`), shared by the
 * server (`Dashboard.ts`) and the page (`web/src/api.ts`), so the two cannot drift apart. Types only: the page's
 * bundle gets nothing from here.
 *
 * @since 0.1.0
 */
import type { Briefing } from "@heed/collator/Briefing"

/**
 * A budget's unit.
 *
 * @category models
 * @since 0.1.0
 */
export type Unit = "tokens" | "nodes"

/**
 * The briefing as the dashboard shows it: the full briefing (with `evaluation`), its text lines most severe first
 * (`summary` apart), and two o200k token counts: `tokens`, of the compact JSON `get_briefing` returns to an agent,
 * and `text_tokens`, of its `format: "text"` rendering.
 *
 * @category models
 * @since 0.1.0
 */
export interface BriefingReply {
  readonly owner: string
  readonly briefing: Briefing
  readonly summary: string
  readonly lines: ReadonlyArray<string>
  readonly tokens: number
  readonly text_tokens: number
}

/**
 * One line of a budgeted view: the node's line as an agent reads it (`Render.line`), its depth, type and id, and
 * `cut`: how many nodes under it the budget left out (0 when none).
 *
 * @category models
 * @since 0.1.0
 */
export interface ViewRow {
  readonly depth: number
  readonly id: string
  readonly type: string
  readonly line: string
  readonly cut: number
}

/**
 * What an agent is served under a budget of `budget` tokens or nodes: `view`, the tree through
 * `Pipeline.optimize`; `digest`, `Digest.make` of it; `briefing`, the briefing at that budget as text lines, most
 * severe first: under a token budget the collator's own fit (`tokens` counts its compact JSON as an agent gets it;
 * `cut` is how many of the full briefing's lines it no longer has), under a node budget the first `budget` lines. `total` is the whole tree and `floor` the smallest view the optimiser
 * can make (root children and pinned subtrees are never cut), so a token budget under `floor.tokens` cannot be met.
 *
 * @category models
 * @since 0.1.0
 */
export interface ViewReply {
  readonly unit: Unit
  readonly budget: number
  readonly total: { readonly nodes: number; readonly tokens: number }
  readonly floor: { readonly nodes: number; readonly tokens: number }
  readonly view: {
    readonly nodes: number
    readonly tokens: number
    readonly rows: ReadonlyArray<ViewRow>
  }
  readonly digest: {
    readonly nodes: number
    readonly tokens: number
    readonly summary: string
    readonly rows: ReadonlyArray<ViewRow>
    readonly cut: number
  }
  readonly briefing: { readonly lines: ReadonlyArray<string>; readonly cut: number; readonly tokens: number }
}
