/**
 * The dashboard's two JSON reads (`src/Dashboard.ts` on the server): the briefing with its o200k token counts, and
 * what an agent is served under a budget. The token goes in the `Authorization` header, never in the URL.
 */

export interface BriefingReply {
  readonly owner: string
  readonly briefing: {
    readonly summary: string
    readonly attention_needed: boolean
    readonly active_alerts: number
    readonly active_suppressions: number
    readonly suggested_mention?: string
    readonly evaluation?: Readonly<Record<string, number>>
  }
  readonly summary: string
  readonly lines: ReadonlyArray<string>
  readonly tokens: number
  readonly text_tokens: number
}

export interface ViewRow {
  readonly depth: number
  readonly id: string
  readonly type: string
  readonly line: string
  readonly cut: number
}

export type Unit = "tokens" | "nodes"

export interface ViewReply {
  readonly unit: Unit
  readonly budget: number
  readonly total: { readonly nodes: number; readonly tokens: number }
  readonly floor: { readonly nodes: number; readonly tokens: number }
  readonly view: { readonly nodes: number; readonly tokens: number; readonly rows: ReadonlyArray<ViewRow> }
  readonly digest: {
    readonly nodes: number
    readonly tokens: number
    readonly summary: string
    readonly rows: ReadonlyArray<ViewRow>
    readonly cut: number
  }
  readonly briefing: { readonly lines: ReadonlyArray<string>; readonly cut: number; readonly tokens: number }
}

/** A read's outcome: its body, `unauthorized` (the token was refused or is missing), or another failure. */
export type Outcome<A> =
  | { readonly _tag: "ok"; readonly value: A }
  | { readonly _tag: "unauthorized" }
  | { readonly _tag: "failed"; readonly message: string }

const get = async <A>(path: string, token: string | undefined): Promise<Outcome<A>> => {
  let response: Response
  try {
    response = await fetch(path, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      cache: "no-store"
    })
  } catch (error) {
    return { _tag: "failed", message: `the server cannot be reached (${String(error)})` }
  }
  if (response.status === 401) return { _tag: "unauthorized" }
  const body: unknown = await response.json().catch(() => undefined)
  if (!response.ok) {
    const description = (body as { error_description?: unknown } | undefined)?.error_description
    return { _tag: "failed", message: typeof description === "string" ? description : `HTTP ${response.status}` }
  }
  return { _tag: "ok", value: body as A }
}

export const briefing = (token: string | undefined) => get<BriefingReply>("/dashboard/briefing", token)

export const view = (token: string | undefined, unit: Unit, budget: number) =>
  get<ViewReply>(`/dashboard/view?unit=${unit}&budget=${Math.max(0, Math.floor(budget))}`, token)
