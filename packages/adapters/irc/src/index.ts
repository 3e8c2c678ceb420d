/**
 * @heed/irc: IRC transport feeding attention bands: irc-framework with heed's reconnect, send queue, mention
 * rules and message buffer.
 *
 * @since 0.1.0
 */

export * from "./AttentionWiring.ts"

export * from "./IrcEvent.ts"

/**
 * A scripted IRC user over a raw socket, for tests: `IrcTestClient.rawClient(port, nick, channels)`.
 *
 * @since 0.1.0
 */
export * as IrcTestClient from "./IrcTestClient.ts"

/**
 * Splitting outgoing text into IRC lines: `IrcText.splitMessage(text, maxBytes)`, `IrcText.maxPayloadBytes(target)`.
 *
 * @since 0.1.0
 */
export * as IrcText from "./IrcText.ts"

export * from "./IrcTransport.ts"

/**
 * culture's rules for incoming messages: `MentionRules.classify`, `MentionRules.mentionMatcher`,
 * `MentionRules.shortNick`, `MentionRules.parseThread`.
 *
 * @since 0.1.0
 */
export * as MentionRules from "./MentionRules.ts"

export * from "./MessageBuffer.ts"

/**
 * A real IRC server for tests: `NgircdServer.start` (Debian's ngircd on a free loopback port),
 * `NgircdServer.unavailableReason()`.
 *
 * @since 0.1.0
 */
export * as NgircdServer from "./NgircdServer.ts"
