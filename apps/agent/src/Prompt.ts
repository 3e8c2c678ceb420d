/**
 * culture's prompt formats: the poll prompt (`[IRC Channel Poll: T] Recent unread messages:` then `  <nick>
 * text` lines), the mention prompt (`[IRC @mention in #chan] <sender> text`) and the DM prompt (`[IRC DM]
 * <sender> text`), plus the awareness briefing block heed adds when attention is needed.
 *
 * @since 0.1.0
 */
import type { IrcEvent, MessageBuffer } from "@heed/irc"
import { effortId } from "./TargetContext.ts"

/**
 * One line of a conversation as culture quotes it: `<nick> text`. (A thread's lines go to the thread's own prompt
 * and log, which name the thread once.)
 *
 * @category combinators
 * @since 0.1.0
 */
export const quote = (message: { readonly sender: string; readonly text: string }) =>
  `<${message.sender}> ${message.text}`

/**
 * The poll prompt for the unread messages of one conversation: `where` is a target, or a thread of it as
 * `TargetContext.effortId` names it (`#dev thread:deploy`).
 *
 * @category combinators
 * @since 0.1.0
 */
export const poll = (where: string, messages: ReadonlyArray<MessageBuffer.BufferedMessage>): string =>
  [
    `[IRC Channel Poll: ${where}] Recent unread messages:`,
    ...messages.map((message) => `  ${quote(message)}`),
    "Respond naturally if any messages need your attention."
  ].join("\n")

/**
 * The direct prompt for a mention (`[IRC @mention in #dev] <alice> text`, `[IRC @mention in #dev thread:deploy]
 * ...`) or a DM (`[IRC DM] <alice> text`).
 *
 * @category combinators
 * @since 0.1.0
 */
export const direct = (mention: IrcEvent.Mention): string =>
  mention.dm
    ? `[IRC DM${mention.thread === undefined ? "" : ` thread:${mention.thread}`}] ${quote(mention)}`
    : `[IRC @mention in ${effortId(mention.target, mention.thread)}] ${quote(mention)}`

/**
 * The awareness block put before a prompt when the briefing says attention is needed.
 *
 * @category combinators
 * @since 0.1.0
 */
export const briefing = (summary: string, suggested: string | undefined): string =>
  [`[Awareness briefing] ${summary}`, ...(suggested === undefined ? [] : [`Suggested mention: ${suggested}`])].join(
    "\n"
  )

/**
 * The system prompt every runner gets first.
 *
 * @category constants
 * @since 0.1.0
 */
export const system = (nick: string): string =>
  [
    `You are ${nick}, an agent on IRC. Each prompt shows new messages from one channel, thread or DM; your reply is posted there.`,
    "Reply briefly. Reply with nothing to stay silent.",
    "Earlier conversations appear as summaries; a conversation you return to shows its recent exchanges in full."
  ].join("\n")
