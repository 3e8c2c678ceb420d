/**
 * culture's prompt formats: the poll prompt (`[IRC Channel Poll: T] Recent unread messages:` then `  <nick>
 * text` lines), the mention prompt (`[IRC @mention in #chan] <sender> text`) and the DM prompt (`[IRC DM]
 * <sender> text`), plus the awareness briefing block heed adds when attention is needed.
 *
 * @since 0.1.0
 */
import type { BufferedMessage, Mention } from "@heed/irc"

/**
 * The lines of a conversation as culture quotes them: `<nick> text`, with the thread named when there is one.
 *
 * @category formatting
 * @since 0.1.0
 */
export const quote = (message: {
  readonly sender: string
  readonly text: string
  readonly thread?: string | undefined
}) =>
  message.thread === undefined
    ? `<${message.sender}> ${message.text}`
    : `<${message.sender}> [thread:${message.thread}] ${message.text}`

/**
 * The poll prompt for the unread, non-mention messages of a target.
 *
 * @category formatting
 * @since 0.1.0
 */
export const poll = (target: string, messages: ReadonlyArray<BufferedMessage>): string =>
  [
    `[IRC Channel Poll: ${target}] Recent unread messages:`,
    ...messages.map((message) => `  ${quote(message)}`),
    "Respond naturally if any messages need your attention."
  ].join("\n")

/**
 * The direct prompt for a mention or DM.
 *
 * @category formatting
 * @since 0.1.0
 */
export const direct = (mention: Mention): string => {
  if (mention.dm) return `[IRC DM] ${quote(mention)}`
  const where = mention.thread === undefined ? mention.target : `${mention.target} thread:${mention.thread}`
  return `[IRC @mention in ${where}] <${mention.sender}> ${mention.text}`
}

/**
 * The awareness block put before a prompt when the briefing says attention is needed.
 *
 * @category formatting
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
    `You are ${nick}, an agent on IRC. Each prompt shows new messages from one channel or DM; your reply is posted there.`,
    "Reply briefly. Reply with nothing to stay silent.",
    "Earlier conversations appear as summaries; a conversation you return to shows its recent exchanges in full."
  ].join("\n")
