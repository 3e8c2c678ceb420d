/**
 * The dashboard's two JSON reads (`src/Dashboard.ts` on the server): the briefing with its o200k token counts, and
 * what an agent is served under a budget. The token goes in the `Authorization` header, never in the URL.
 */

import type { BriefingReply, Unit, ViewReply } from "../../src/DashboardReply.ts"

export type { BriefingReply, Unit, ViewReply, ViewRow } from "../../src/DashboardReply.ts"

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
