/**
 * Per-target ring buffers of received messages with read cursors, as culture's harness keeps them: each target
 * (a channel or `DM:<peer>`) holds its last 500 messages; a poll reads at most 50 unread ones and moves the
 * target's cursor past them. heed adds claims: a consumer that can fail takes messages with `claim`, then `ack`s
 * them once delivered or `release`s them for the next read, so a failure loses nothing.
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
 * Settings of {@link MessageBuffer.layer} (in-process, so camelCase; the agent's config file keeps its own names).
 *
 * @category models
 * @since 0.1.0
 */
export interface MessageBufferOptions {
  /** Messages kept per target (default 500). */
  readonly capacity?: number | undefined
  /** Most messages one read returns (default 50). */
  readonly readLimit?: number | undefined
  /**
   * The old name of `readLimit`, still accepted (`readLimit` wins when both are set).
   *
   * @deprecated Use `readLimit`.
   */
  readonly read_limit?: number | undefined
}

/**
 * The buffer's interface.
 *
 * Each message is unread, claimed (handed to a consumer that has not answered yet) or settled. {@link read}
 * settles what it returns at once; {@link claim}, {@link ack} and {@link release} let a consumer that can fail
 * (an agent's runner) lose nothing: claimed messages are not returned again while the claim stands, an `ack`
 * settles them, a `release` makes them unread again for the next read. The target's cursor moves past settled
 * messages only.
 *
 * @category models
 * @since 0.1.0
 */
export interface MessageBufferShape {
  /** Appends a message to its target's ring and returns it with its `seq`. */
  readonly append: (message: Omit<BufferedMessage, "seq">) => Effect.Effect<BufferedMessage>
  /**
   * Reads the target's unread messages (the newest `readLimit` of them when more are waiting; the older ones
   * are given up and counted in `skipped`) and settles them.
   */
  readonly read: (target: string) => Effect.Effect<ReadResult>
  /**
   * Like {@link read}, but claims the messages instead of settling them: they stay out of later reads until
   * {@link ack} settles them or {@link release} returns them. With `seqs`, claims exactly those messages (the ones
   * still unread), e.g. a mention handed to the agent as it arrives.
   */
  readonly claim: (target: string, seqs?: ReadonlyArray<number>) => Effect.Effect<ReadResult>
  /** Settles claimed messages (they were delivered); the cursor moves past every settled message in order. */
  readonly ack: (target: string, seqs: ReadonlyArray<number>) => Effect.Effect<void>
  /** Returns claimed messages to unread (their delivery failed), so the next read or claim returns them again. */
  readonly release: (target: string, seqs: ReadonlyArray<number>) => Effect.Effect<void>
  /** Reads up to `limit` (at most `readLimit`) messages after `cursor` without changing any message's state. */
  readonly since: (target: string, cursor: number, limit?: number) => Effect.Effect<ReadResult>
  /** How many messages of the target are unread (neither claimed nor settled; capped by the ring's capacity). */
  readonly unread: (target: string) => Effect.Effect<number>
  /** Drops a target's ring (e.g. after a part). */
  readonly forget: (target: string) => Effect.Effect<boolean>
  /** The targets with a ring. */
  readonly targets: Effect.Effect<ReadonlyArray<string>>
}

// One target's messages. Every seq up to `cursor` is settled (or overwritten); above it, `settled` and `claimed`
// hold the exceptions, so everything else between `cursor` and `last` is unread.
class Ring {
  readonly slots: Array<BufferedMessage> = []
  last = 0 // seq of the newest message
  cursor = 0
  private readonly settled = new Set<number>()
  private readonly claimed = new Set<number>()
  private lost = 0 // unsettled messages overwritten since the last read

  private readonly capacity: number

  constructor(capacity: number) {
    this.capacity = capacity
  }

  push(message: Omit<BufferedMessage, "seq">): BufferedMessage {
    const stored = { ...message, seq: ++this.last }
    if (this.slots.length < this.capacity) {
      this.slots.push(stored)
      return stored
    }
    // The slot's previous message (and every older one) is gone: move the cursor past it.
    const gone = stored.seq - this.capacity
    if (gone > this.cursor) {
      if (!this.settled.has(gone)) this.lost += 1
      this.settled.delete(gone)
      this.claimed.delete(gone)
      this.cursor = gone
      this.advance()
    }
    this.slots[(stored.seq - 1) % this.capacity] = stored
    return stored
  }

  get unread(): number {
    return this.last - this.cursor - this.settled.size - this.claimed.size
  }

  private at(seq: number): BufferedMessage {
    return this.slots[(seq - 1) % this.capacity]!
  }

  private isUnread(seq: number): boolean {
    return seq > this.cursor && seq <= this.last && !this.settled.has(seq) && !this.claimed.has(seq)
  }

  private advance(): void {
    while (this.settled.delete(this.cursor + 1)) this.cursor += 1
  }

  // The newest `limit` unread messages, marked settled or claimed; older unread ones are given up (settled).
  take(limit: number, as: "settled" | "claimed"): ReadResult {
    const taken: Array<BufferedMessage> = []
    let skipped = this.lost
    this.lost = 0
    for (let seq = this.last; seq > this.cursor; seq--) {
      if (!this.isUnread(seq)) continue
      if (taken.length < limit) {
        taken.push(this.at(seq))
        this[as].add(seq)
      } else {
        this.settled.add(seq)
        skipped += 1
      }
    }
    this.advance()
    taken.reverse()
    return { messages: taken, cursor: taken.at(-1)?.seq ?? this.cursor, skipped }
  }

  claimExactly(seqs: ReadonlyArray<number>): ReadResult {
    const taken = [...new Set(seqs)].filter((seq) => this.isUnread(seq)).sort((a, b) => a - b)
    for (const seq of taken) this.claimed.add(seq)
    return { messages: taken.map((seq) => this.at(seq)), cursor: taken.at(-1) ?? this.cursor, skipped: 0 }
  }

  settle(seqs: ReadonlyArray<number>): void {
    for (const seq of seqs) {
      this.claimed.delete(seq)
      if (seq > this.cursor && seq <= this.last) this.settled.add(seq)
    }
    this.advance()
  }

  unclaim(seqs: ReadonlyArray<number>): void {
    for (const seq of seqs) this.claimed.delete(seq)
  }

  // Messages with seq in (after, after + limit], oldest first, clipped to what the ring still holds.
  range(after: number, limit: number): ReadResult {
    const oldest = Math.max(1, this.last - this.slots.length + 1)
    const from = Math.max(after + 1, oldest)
    const to = Math.min(this.last, from + limit - 1)
    const messages: Array<BufferedMessage> = []
    for (let seq = from; seq <= to; seq++) messages.push(this.at(seq))
    return { messages, cursor: Math.max(after, to), skipped: from - (after + 1) }
  }
}

const build = (options: MessageBufferOptions = {}): MessageBufferShape => {
  const capacity = Math.max(1, Math.floor(options.capacity ?? 500))
  const readLimit = Math.max(1, Math.floor(options.readLimit ?? options.read_limit ?? 50))
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
  const onRing = <A>(target: string, f: (ring: Ring) => A, otherwise: A) =>
    Effect.sync(() => {
      const found = rings.get(target)
      return found === undefined ? otherwise : f(found)
    })
  return {
    append: (message) => Effect.sync(() => ring(message.target).push(message)),
    read: (target) => onRing(target, (found) => found.take(readLimit, "settled"), empty(0)),
    claim: (target, seqs) =>
      onRing(
        target,
        (found) => (seqs === undefined ? found.take(readLimit, "claimed") : found.claimExactly(seqs)),
        empty(0)
      ),
    ack: (target, seqs) => onRing(target, (found) => found.settle(seqs), undefined),
    release: (target, seqs) => onRing(target, (found) => found.unclaim(seqs), undefined),
    since: (target, cursor, limit = readLimit) =>
      onRing(target, (found) => found.range(cursor, Math.min(limit, readLimit)), empty(cursor)),
    unread: (target) => onRing(target, (found) => found.unread, 0),
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
 *   const buffer = yield* MessageBuffer.MessageBuffer
 *   yield* buffer.append({ target: "#dev", sender: "alice", text: "hi", mention: false, thread: undefined, at: 0 })
 *   const { messages } = yield* buffer.read("#dev") // [alice: hi]; a second read returns nothing new
 * }).pipe(Effect.provide(MessageBuffer.layer()))
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class MessageBuffer extends Context.Service<MessageBuffer, MessageBufferShape>()("@heed/irc/MessageBuffer") {}

/**
 * A buffer (plain, synchronous state behind Effects).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: (options?: MessageBufferOptions) => MessageBufferShape = build

/**
 * A layer with one buffer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options?: MessageBufferOptions): Layer.Layer<MessageBuffer> =>
  Layer.sync(MessageBuffer, () => make(options))
