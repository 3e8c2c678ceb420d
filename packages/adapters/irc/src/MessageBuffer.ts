/**
 * Per-target ring buffers of received messages with read cursors, as culture's harness keeps them: each target
 * (a channel or `DM:<peer>`) holds its last 500 messages; a poll reads at most 50 unread ones and moves the
 * target's cursor past them.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * One buffered message. `seq` increases by one per message of the same target, from 1.
 *
 * @category models
 * @since 0.1.0
 */
export interface BufferedMessage {
  readonly seq: number
  readonly target: string
  readonly sender: string
  readonly text: string
  /** Whether the message mentioned the agent (a poll leaves these out: they were delivered directly). */
  readonly mention: boolean
  readonly thread: string | undefined
  /** Milliseconds since the epoch. */
  readonly at: number
}

/**
 * The result of a read: the messages (oldest first), the cursor after them, and how many unread messages were
 * skipped because more than `limit` were waiting or the ring had already overwritten them.
 *
 * @category models
 * @since 0.1.0
 */
export interface ReadResult {
  readonly messages: ReadonlyArray<BufferedMessage>
  readonly cursor: number
  readonly skipped: number
}

/**
 * Settings of {@link MessageBuffer.layer}.
 *
 * @category models
 * @since 0.1.0
 */
export interface MessageBufferOptions {
  /** Messages kept per target (default 500). */
  readonly capacity?: number | undefined
  /** Most messages one read returns (default 50). */
  readonly read_limit?: number | undefined
}

/**
 * The buffer's interface.
 *
 * @category models
 * @since 0.1.0
 */
export interface MessageBufferShape {
  /** Appends a message to its target's ring and returns it with its `seq`. */
  readonly append: (message: Omit<BufferedMessage, "seq">) => Effect.Effect<BufferedMessage>
  /**
   * Reads the target's unread messages (the newest `read_limit` of them when more are waiting) and moves its
   * cursor to the end.
   */
  readonly read: (target: string) => Effect.Effect<ReadResult>
  /** Reads up to `limit` (at most `read_limit`) messages after `cursor` without moving the target's cursor. */
  readonly since: (target: string, cursor: number, limit?: number) => Effect.Effect<ReadResult>
  /** How many unread messages the target has (capped by the ring's capacity). */
  readonly unread: (target: string) => Effect.Effect<number>
  /** Drops a target's ring (e.g. after a part). */
  readonly forget: (target: string) => Effect.Effect<boolean>
  /** The targets with a ring. */
  readonly targets: Effect.Effect<ReadonlyArray<string>>
}

class Ring {
  readonly slots: Array<BufferedMessage> = []
  last = 0 // seq of the newest message
  cursor = 0 // seq of the last message read

  private readonly capacity: number

  constructor(capacity: number) {
    this.capacity = capacity
  }

  push(message: Omit<BufferedMessage, "seq">): BufferedMessage {
    const stored = { ...message, seq: ++this.last }
    if (this.slots.length < this.capacity) this.slots.push(stored)
    else this.slots[(stored.seq - 1) % this.capacity] = stored
    return stored
  }

  // Messages with seq in (after, after + limit], oldest first, clipped to what the ring still holds.
  range(after: number, limit: number): ReadResult {
    const oldest = Math.max(1, this.last - this.slots.length + 1)
    const from = Math.max(after + 1, oldest)
    const to = Math.min(this.last, from + limit - 1)
    const messages: Array<BufferedMessage> = []
    for (let seq = from; seq <= to; seq++) messages.push(this.slots[(seq - 1) % this.capacity]!)
    return { messages, cursor: Math.max(after, to), skipped: from - (after + 1) }
  }
}

const make = (options: MessageBufferOptions = {}): MessageBufferShape => {
  const capacity = Math.max(1, Math.floor(options.capacity ?? 500))
  const readLimit = Math.max(1, Math.floor(options.read_limit ?? 50))
  const rings = new Map<string, Ring>()
  const ring = (target: string) => {
    let found = rings.get(target)
    if (found === undefined) {
      found = new Ring(capacity)
      rings.set(target, found)
    }
    return found
  }
  const empty = (cursor: number): ReadResult => ({ messages: [], cursor, skipped: 0 })
  return {
    append: (message) => Effect.sync(() => ring(message.target).push(message)),
    read: (target) =>
      Effect.sync(() => {
        const found = rings.get(target)
        if (found === undefined) return empty(0)
        const unread = found.last - found.cursor
        const start = Math.max(found.cursor, found.last - readLimit)
        const result = found.range(start, readLimit)
        found.cursor = found.last
        return { ...result, skipped: unread - result.messages.length }
      }),
    since: (target, cursor, limit = readLimit) =>
      Effect.sync(() => rings.get(target)?.range(cursor, Math.min(limit, readLimit)) ?? empty(cursor)),
    unread: (target) =>
      Effect.sync(() => {
        const found = rings.get(target)
        return found === undefined ? 0 : Math.min(found.last - found.cursor, found.slots.length)
      }),
    forget: (target) => Effect.sync(() => rings.delete(target)),
    targets: Effect.sync(() => [...rings.keys()])
  }
}

/**
 * The message buffer service: `MessageBuffer.layer(options?)` or `MessageBuffer.make(options?)`.
 *
 * **Example** (Reading unread messages)
 *
 * ```ts
 * import { MessageBuffer } from "@heed/irc"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const buffer = yield* MessageBuffer
 *   yield* buffer.append({ target: "#dev", sender: "alice", text: "hi", mention: false, thread: undefined, at: 0 })
 *   const { messages } = yield* buffer.read("#dev") // [alice: hi]; a second read returns nothing new
 * }).pipe(Effect.provide(MessageBuffer.layer()))
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class MessageBuffer extends Context.Service<MessageBuffer, MessageBufferShape>()("@heed/irc/MessageBuffer") {
  /** A buffer (plain, synchronous state behind Effects). */
  static readonly make: (options?: MessageBufferOptions) => MessageBufferShape = make

  /** A layer with one buffer. */
  static readonly layer = (options?: MessageBufferOptions): Layer.Layer<MessageBuffer> =>
    Layer.sync(MessageBuffer, () => make(options))
}
