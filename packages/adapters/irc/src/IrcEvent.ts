/**
 * The events an {@link IrcTransport} publishes: what people said to or around the agent (`Mention`, `Ambient`),
 * what the agent said (`Outgoing`, one per line actually written), and the connection's life (`Connected`,
 * `Disconnected`, `Joined`, `Parted`).
 *
 * @since 0.1.0
 */

/**
 * A message for the agent: a DM (`target` is `DM:<peer>`, `dm` true) or a channel message naming it
 * (`@fullnick` or `@short`). `thread` is set when the text carried AgentIRC's `[thread:name] ` prefix (then
 * stripped from `text`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Mention {
  readonly _tag: "Mention"
  readonly target: string
  readonly sender: string
  readonly text: string
  readonly dm: boolean
  readonly thread: string | undefined
  /** Milliseconds since the epoch, when the transport received it. */
  readonly at: number
}

/**
 * A channel message that does not mention the agent.
 *
 * @category models
 * @since 0.1.0
 */
export interface Ambient {
  readonly _tag: "Ambient"
  readonly target: string
  readonly sender: string
  readonly text: string
  readonly thread: string | undefined
  readonly at: number
}

/**
 * One line the agent sent, fired after it was written to the server (thread replies included; `line` is the
 * text without the thread prefix). `target` is the channel or `DM:<peer>`, `to` the IRC target it went to.
 *
 * @category models
 * @since 0.1.0
 */
export interface Outgoing {
  readonly _tag: "Outgoing"
  readonly target: string
  readonly to: string
  readonly line: string
  readonly thread: string | undefined
  readonly at: number
}

/**
 * Registration with the server completed (first connect or a reconnect); `nick` is the nick the server gave us.
 *
 * @category models
 * @since 0.1.0
 */
export interface Connected {
  readonly _tag: "Connected"
  readonly nick: string
  /** 0 for the first connection, then 1, 2, ... for each reconnect. */
  readonly reconnects: number
}

/**
 * The connection closed; unless the transport is shutting down a reconnect follows after `retryInMs`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Disconnected {
  readonly _tag: "Disconnected"
  readonly reason: string
  readonly retryInMs: number | undefined
}

/**
 * The server confirmed that we joined a channel.
 *
 * @category models
 * @since 0.1.0
 */
export interface Joined {
  readonly _tag: "Joined"
  readonly channel: string
}

/**
 * We left a channel (part or kick).
 *
 * @category models
 * @since 0.1.0
 */
export interface Parted {
  readonly _tag: "Parted"
  readonly channel: string
  readonly kicked: boolean
}

/**
 * Any transport event.
 *
 * @category models
 * @since 0.1.0
 */
export type IrcEvent = Mention | Ambient | Outgoing | Connected | Disconnected | Joined | Parted
