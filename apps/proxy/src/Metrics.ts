/**
 * The proxy's counters, rendered in the Prometheus text exposition format at `GET /metrics`.
 *
 * @since 0.1.0
 */

/**
 * Mutable counters of one proxy process.
 *
 * @category models
 * @since 0.1.0
 */
export interface Metrics {
  readonly requests: Map<string, number>
  tokensIn: number
  tokensSent: number
  collapses: number
  expandsTool: number
  expandsReference: number
  upstreamErrors: number
  rounds: number
}

/**
 * Fresh counters.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (): Metrics => ({
  requests: new Map(),
  tokensIn: 0,
  tokensSent: 0,
  collapses: 0,
  expandsTool: 0,
  expandsReference: 0,
  upstreamErrors: 0,
  rounds: 0
})

/**
 * Counts one request by API and status.
 *
 * @category combinators
 * @since 0.1.0
 */
export const countRequest = (metrics: Metrics, api: string, status: number): void => {
  const key = `api="${api}",status="${status}"`
  metrics.requests.set(key, (metrics.requests.get(key) ?? 0) + 1)
}

/**
 * The Prometheus text of the counters (`sessions` is the session store's current size).
 *
 * @category getters
 * @since 0.1.0
 */
export const render = (metrics: Metrics, sessions: number): string => {
  const lines: Array<string> = []
  const counter = (name: string, help: string, value: number) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`, `${name} ${value}`)
  }
  lines.push("# HELP heed_proxy_requests_total Requests answered, by API and status.")
  lines.push("# TYPE heed_proxy_requests_total counter")
  for (const [labels, value] of [...metrics.requests.entries()].sort()) {
    lines.push(`heed_proxy_requests_total{${labels}} ${value}`)
  }
  counter("heed_proxy_tokens_in_total", "Input tokens clients sent (o200k).", metrics.tokensIn)
  counter("heed_proxy_tokens_sent_total", "Input tokens sent upstream (o200k).", metrics.tokensSent)
  counter("heed_proxy_collapses_total", "Efforts collapsed to their gist.", metrics.collapses)
  counter("heed_proxy_expands_tool_total", "Efforts restored through the heed_expand tool.", metrics.expandsTool)
  counter(
    "heed_proxy_expands_reference_total",
    "Collapsed efforts restored because a new message referred to them.",
    metrics.expandsReference
  )
  counter("heed_proxy_upstream_rounds_total", "Extra upstream requests made to answer heed_expand.", metrics.rounds)
  counter("heed_proxy_upstream_errors_total", "Upstream timeouts and unreachable upstreams.", metrics.upstreamErrors)
  lines.push("# HELP heed_proxy_sessions Sessions in the session store.", "# TYPE heed_proxy_sessions gauge")
  lines.push(`heed_proxy_sessions ${sessions}`)
  return `${lines.join("\n")}\n`
}
