/**
 * @heed/irc: IRC transport feeding attention bands: irc-framework with heed's reconnect, send queue, mention
 * rules and message buffer.
 *
 * @since 0.1.0
 */

/**
 * Binds an {@link IrcTransport}'s events to `@heed/attention-bands` with the daemon's rules: a mention or DM is a
 * direct stimulus (HOT, and it opens the thread window), even while the scheduler is paused; channel traffic counts as
 * ambient only inside the thread window; every line we send (thread replies included) opens the window; a joined
 * channel is seeded (polled even while quiet) and a parted one forgotten.
 *
 * @since 0.1.0
 */
export * as AttentionWiring from "./AttentionWiring.ts"

/**
 * The events an {@link IrcTransport} publishes: what people said to or around the agent (`Mention`, `Ambient`), what
 * the agent said (`Outgoing`, one per line actually written), and the connection's life (`Connected`, `Disconnected`,
 * `Joined`, `Parted`).
 *
 * @since 0.1.0
 */
export * as IrcEvent from "./IrcEvent.ts"

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

/**
 * The IRC transport: a connection to one IRC server over `irc-framework`, wrapped in heed's types, with heed's own
 * reconnect (backoff from 1 s doubling to 60 s, never giving up), a paced send queue (so joining hundreds of channels
 * or answering a burst of mentions never gets the agent killed for flooding), and culture's rules for mentions, DMs and
 * ambient traffic.
 *
 * @since 0.1.0
 */
export * as IrcTransport from "./IrcTransport.ts"

/**
 * culture's rules for incoming messages: `MentionRules.classify`, `MentionRules.mentionMatcher`,
 * `MentionRules.shortNick`, `MentionRules.parseThread`.
 *
 * @since 0.1.0
 */
export * as MentionRules from "./MentionRules.ts"

/**
 * Per-target ring buffers of received messages with read cursors, as culture's harness keeps them: each target (a
 * channel or `DM:<peer>`) holds its last 500 messages; a poll reads at most 50 unread ones and moves the target's
 * cursor past them. heed adds claims: a consumer that can fail takes messages with `claim`, then `ack`s them once
 * delivered or `release`s them for the next read, so a failure loses nothing.
 *
 * @since 0.1.0
 */
export * as MessageBuffer from "./MessageBuffer.ts"

/**
 * A real IRC server for tests: `NgircdServer.start` (Debian's ngircd on a free loopback port),
 * `NgircdServer.unavailableReason()`.
 *
 * @since 0.1.0
 */
export * as NgircdServer from "./NgircdServer.ts"
