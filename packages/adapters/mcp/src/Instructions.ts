/**
 * The server instructions sent in the MCP `initialize` result: read the briefing first, stay quiet when nothing needs
 * attention, and how to write and query without wasting tokens.
 *
 * @since 0.1.0
 */

/**
 * The instructions text.
 *
 * @category constants
 * @since 0.1.0
 */
export const instructions = `heed awareness: a shared, always-on picture of the user's systems, reminders and knowledge.

At the start of each conversation, call get_briefing once (or read awareness://briefing).
- attention_needed is false: say nothing about it; carry on with the user's request. It is true only for a
  surfaced alert, a stale source, a fired reminder not yet acknowledged or an upcoming item; info headlines never
  set it.
- attention_needed is true: tell the user, using suggested_mention or the source headlines. One sentence for a
  warning; a short paragraph for something critical or stale. Do not read it again in the same conversation unless
  the user asks or you receive notifications/resources/updated for awareness://briefing.
- Drill down (awareness://alerts/{source}, awareness://status/{source}, get_alerts, get_status) only when the user
  asks for details.

Writing:
- Something the user says is expected ("qBittorrent stops on Fridays"): learn_pattern.
- "Stop telling me about X for a while": suppress_alert with a duration and a reason (never edit memory for this);
  clear_suppression ends it early.
- A durable fact (still true in 30 days?): remember. Something temporary: add_context. A settings-like choice:
  set_preference. Something to bring up later: remind with deliver_at. After acting on an entry: acted_on.

Querying:
- Call get_stats or get_tags first; use list mode first; always set a limit; filter with 2-3 specific tags; use
  hint or search for free text.
- Errors are JSON {"status":"error","error":{code, message, retryable, param, valid, suggestion}}; fix the named
  parameter (see suggestion) and retry only when retryable is true or the input changed.`

/**
 * The instructions for the compact tool profile (`HEED_TOOLS=compact`): the same advice in terms of its six tools.
 *
 * @category constants
 * @since 0.1.0
 */
export const compactInstructions = `heed awareness: a shared, always-on picture of the user's systems, reminders and knowledge.

At the start of each conversation, call get_briefing once (or read awareness://briefing).
- attention_needed is false: say nothing about it. It is true only for a surfaced alert, a stale source, a fired
  reminder not yet acknowledged or an upcoming item; then tell the user, using suggested_mention.
- Drill down (recall with what: alerts or status) only when the user asks for details.

Writing: expected behaviour ("qBittorrent stops on Fridays"): remember with kind pattern. "Stop telling me about X for
a while": act with action suppress. A durable fact: remember; something temporary: remember with kind context; a
setting: kind preference. Something to bring up later: remind with deliver_at. Done with an alert or reminder: act
(acknowledge, resolve, done, snooze, cancel). Less used parameters go in fields.

Errors are JSON {"status":"error","error":{code, message, param, suggestion}}; fix the named parameter and retry.`

/**
 * The instructions for a tool profile: {@link instructions} for `full`, {@link compactInstructions} for `compact`.
 *
 * @category getters
 * @since 0.1.0
 */
export const forProfile = (profile: "full" | "compact" | undefined): string =>
  profile === "compact" ? compactInstructions : instructions
