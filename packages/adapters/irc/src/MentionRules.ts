/**
 * culture's rules for what an incoming IRC message means to the agent: a direct message (the PRIVMSG target is
 * our nick, keyed `DM:<peer>`), a mention (`@fullnick` or `@short` on word boundaries, where `short` is the part
 * of the nick after the first `-`), or ambient channel traffic. Messages from ourselves and from `system-*` users
 * are dropped. Pure functions over strings; the transport applies them to every PRIVMSG.
 *
 * @since 0.1.0
 */
import { Engagement } from "@heed/attention-bands"

/**
 * What one incoming PRIVMSG is to the agent.
 *
 * - `dm`: sent to our nick; `target` is `DM:<peer>`;
 * - `mention`: a channel message naming us (`@fullnick` or `@short`);
 * - `ambient`: any other channel message;
 * - `drop`: from ourselves, from a `system-*` user, or to a target that is neither us nor a channel.
 *
 * A message is exactly one of these: a mention never also counts as ambient.
 *
 * @category models
 * @since 0.1.0
 */
export type Classification =
  | { readonly kind: "dm"; readonly target: string }
  | { readonly kind: "mention"; readonly target: string }
  | { readonly kind: "ambient"; readonly target: string }
  | { readonly kind: "drop"; readonly reason: "self" | "system" | "not-for-us" }

// Characters RFC 2812 allows in a nick; a mention ends where they end.
const NICK_CHAR = "A-Za-z0-9_\\-\\[\\]\\\\^{}|`"
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")

/**
 * The short form of a nick: the part after the first `-` (`spark-claude` → `claude`), or `undefined` when the
 * nick has no `-` or nothing after it.
 *
 * @category getters
 * @since 0.1.0
 */
export const shortNick = (nick: string): string | undefined => {
  const dash = nick.indexOf("-")
  return dash < 0 || dash === nick.length - 1 ? undefined : nick.slice(dash + 1)
}

/**
 * Builds a predicate that tells whether a text mentions `nick`: `@nick` or `@short`, case-insensitively, with no
 * nick character right before the `@` or right after the name (so `@claude` matches in `hi @claude, ...` but not
 * in `@claudette` or `me@claude`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const mentionMatcher = (nick: string): ((text: string) => boolean) => {
  const short = shortNick(nick)
  const names = short === undefined ? escapeRegExp(nick) : `${escapeRegExp(nick)}|${escapeRegExp(short)}`
  const pattern = new RegExp(`(?:^|[^${NICK_CHAR}@.])@(?:${names})(?![${NICK_CHAR}])`, "i")
  return (text) => text.includes("@") && pattern.test(text)
}

/**
 * Builds a function that removes the mentions of `nick` (`@nick` or `@short`, with a trailing `,` or `:`) from a
 * text, e.g. to see what a message is about apart from who it was addressed to.
 *
 * @category constructors
 * @since 0.1.0
 */
export const mentionRemover = (nick: string): ((text: string) => string) => {
  const short = shortNick(nick)
  const names = short === undefined ? escapeRegExp(nick) : `${escapeRegExp(nick)}|${escapeRegExp(short)}`
  const pattern = new RegExp(`(^|[^${NICK_CHAR}@.])@(?:${names})(?![${NICK_CHAR}])[,:]?`, "gi")
  return (text) =>
    text
      .replace(pattern, "$1")
      .replace(/\s{2,}/g, " ")
      .trim()
}

/**
 * Whether two nicks are the same (IRC compares nicks case-insensitively).
 *
 * @category guards
 * @since 0.1.0
 */
export const sameNick = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase()

/**
 * Whether a target names a channel (`#`, `&`, `+` or `!` prefix).
 *
 * @category guards
 * @since 0.1.0
 */
export const isChannel = (target: string): boolean => /^[#&+!]/.test(target)

/**
 * Classifies one PRIVMSG for the agent named `nick` (see {@link Classification}). Pass a matcher from
 * {@link mentionMatcher} when classifying many messages for the same nick.
 *
 * @category constructors
 * @since 0.1.0
 */
export const classify = (
  nick: string,
  message: { readonly target: string; readonly sender: string; readonly text: string },
  mentions: (text: string) => boolean = mentionMatcher(nick)
): Classification => {
  if (sameNick(message.sender, nick)) return { kind: "drop", reason: "self" }
  if (message.sender.toLowerCase().startsWith("system-")) return { kind: "drop", reason: "system" }
  if (sameNick(message.target, nick)) return { kind: "dm", target: Engagement.dmTarget(message.sender) }
  if (!isChannel(message.target)) return { kind: "drop", reason: "not-for-us" }
  return mentions(message.text)
    ? { kind: "mention", target: message.target }
    : { kind: "ambient", target: message.target }
}

const THREAD_PREFIX = /^\[thread:([A-Za-z0-9-]{1,32})\] /

/**
 * Splits AgentIRC's inline thread prefix off a message: `[thread:name] text` → `{ thread: "name", text }`.
 * Names are 1–32 characters, letters, digits and hyphens; anything else is no thread.
 *
 * @category constructors
 * @since 0.1.0
 */
export const parseThread = (text: string): { readonly thread: string | undefined; readonly text: string } => {
  const match = THREAD_PREFIX.exec(text)
  return match === null ? { thread: undefined, text } : { thread: match[1], text: text.slice(match[0].length) }
}

/**
 * Whether a thread name is valid: 1–32 letters, digits or hyphens.
 *
 * @category guards
 * @since 0.1.0
 */
export const isThreadName = (thread: string): boolean => /^[A-Za-z0-9-]{1,32}$/.test(thread)

/**
 * The inline prefix of a thread reply: `[thread:name] ` (check the name with {@link isThreadName} first).
 *
 * @category constructors
 * @since 0.1.0
 */
export const threadPrefix = (thread: string): string => `[thread:${thread}] `
