// The live IRC connection under IrcTransport: one irc-framework client per connection attempt, heed's own
// reconnect (backoff doubling to a cap, no retry ceiling), a paced send queue (token bucket, targets served in
// turn) and the mention rules. Plain callbacks and timers: IrcTransport turns them into Effect streams.
import type { IrcEvent } from "../IrcEvent.ts"
import * as Mention from "../MentionRules.ts"
import { type Client, makeClient } from "./ircFramework.ts"
import { SocketTransport } from "./socketTransport.ts"

export interface ConnectionOptions {
  readonly host: string
  readonly port: number
  readonly tls: boolean
  readonly tlsCa: string | undefined
  readonly tlsInsecure: boolean
  readonly nick: string
  readonly password: string | undefined
  readonly username: string
  readonly realname: string
  readonly channels: ReadonlyArray<string>
  readonly reconnectInitialMs: number
  readonly reconnectMaxMs: number
  readonly linesPerSecond: number
  readonly burst: number
}

interface QueuedLine {
  readonly raw: string
  readonly outgoing: Omit<Extract<IrcEvent, { _tag: "Outgoing" }>, "at"> | undefined
}

// How many channels one JOIN line carries (well under 512 bytes for ordinary names).
const JOIN_BYTES = 400

export class Connection {
  nick: string
  status: "connecting" | "connected" | "disconnected" | "closed" = "disconnected"
  readonly desired = new Map<string, string>() // lower-case key -> channel as configured
  readonly joined = new Set<string>() // lower-case keys
  private client: Client | undefined
  private reconnects = 0
  private attempt = 0
  private retryTimer: ReturnType<typeof setTimeout> | undefined
  private pumpTimer: ReturnType<typeof setTimeout> | undefined
  private readonly priority: Array<QueuedLine> = [] // JOIN/PART, sent before messages
  // Messages per IRC target, in order; targets take turns (a Map iterates in insertion order, and a target that
  // sent a line goes to the back), so a long reply to one channel never holds up a short one to another.
  private readonly queues = new Map<string, Array<QueuedLine>>()
  private queued = 0
  private tokens: number
  private refilledAt = performance.now()
  private drainWaiters: Array<() => void> = []
  private closeWaiters: Array<() => void> = []
  private mentions: (text: string) => boolean

  readonly options: ConnectionOptions
  private readonly emit: (event: IrcEvent) => void

  constructor(options: ConnectionOptions, emit: (event: IrcEvent) => void) {
    this.options = options
    this.emit = emit
    this.nick = options.nick
    this.mentions = Mention.mentionMatcher(options.nick)
    this.tokens = options.burst
    for (const channel of options.channels) this.desired.set(channel.toLowerCase(), channel)
  }

  get pending(): number {
    return this.priority.length + this.queued
  }

  start(): void {
    this.connect()
  }

  private connect(): void {
    this.retryTimer = undefined
    if (this.status === "closed") return
    this.status = "connecting"
    const client = makeClient()
    this.client = client
    const current = () => this.client === client
    client.on("registered", (event) => current() && this.onRegistered(event.nick))
    // Each refused nick gets one more `_` (the nick itself, then nick_, nick__ ...).
    client.on(
      "nick in use",
      (event) => current() && this.status === "connecting" && client.changeNick(`${event.nick}_`)
    )
    client.on("privmsg", (event) => {
      if (!current() || event.from_server === true || event.nick === undefined) return
      this.onPrivmsg(event.target, event.nick, event.message)
    })
    client.on("join", (event) => current() && this.onJoin(event.nick, event.channel))
    client.on("part", (event) => current() && this.onLeave(event.nick, event.channel, false))
    client.on("kick", (event) => current() && this.onLeave(event.kicked ?? "", event.channel, true))
    client.on("socket close", (error) => current() && this.onClose(error))
    client.connect({
      transport: SocketTransport,
      host: this.options.host,
      port: this.options.port,
      tls: this.options.tls,
      tls_ca: this.options.tlsCa,
      tls_insecure: this.options.tlsInsecure,
      nick: this.options.nick,
      username: this.options.username,
      gecos: this.options.realname,
      password: this.options.password,
      auto_reconnect: false,
      ping_interval: 30,
      ping_timeout: 120,
      enable_echomessage: false
    })
  }

  private onRegistered(nick: string): void {
    this.status = "connected"
    this.nick = nick
    this.mentions = Mention.mentionMatcher(nick)
    this.attempt = 0
    this.emit({ _tag: "Connected", nick, reconnects: this.reconnects })
    // (Re)join everything wanted before any queued message goes out.
    this.priority.unshift(...joinLines([...this.desired.values()]))
    this.pump()
  }

  private onPrivmsg(to: string, sender: string, raw: string): void {
    const verdict = Mention.classify(this.nick, { target: to, sender, text: raw }, this.mentions)
    if (verdict.kind === "drop") return
    const { text, thread } = Mention.parseThread(raw)
    const at = Date.now()
    if (verdict.kind === "ambient") {
      this.emit({ _tag: "Ambient", target: verdict.target, sender, text, thread, at })
    } else {
      this.emit({ _tag: "Mention", target: verdict.target, sender, text, dm: verdict.kind === "dm", thread, at })
    }
  }

  private onJoin(nick: string, channel: string): void {
    if (!Mention.sameNick(nick, this.nick)) return
    this.joined.add(channel.toLowerCase())
    this.emit({ _tag: "Joined", channel })
  }

  private onLeave(nick: string, channel: string, kicked: boolean): void {
    if (!Mention.sameNick(nick, this.nick)) return
    const key = channel.toLowerCase()
    this.joined.delete(key)
    if (kicked) this.desired.delete(key)
    this.emit({ _tag: "Parted", channel, kicked })
  }

  private onClose(error: unknown): void {
    this.client?.removeAllListeners()
    this.client = undefined
    this.joined.clear()
    clearTimeout(this.pumpTimer)
    this.pumpTimer = undefined
    const reason = error instanceof Error ? error.message : "connection closed"
    if (this.status === "closed") {
      for (const resolve of this.closeWaiters.splice(0)) resolve()
      this.emit({ _tag: "Disconnected", reason: "quit", retryInMs: undefined })
      return
    }
    this.status = "disconnected"
    const delay = Math.min(this.options.reconnectMaxMs, this.options.reconnectInitialMs * 2 ** this.attempt)
    this.attempt = Math.min(this.attempt + 1, 30)
    this.reconnects += 1
    this.emit({ _tag: "Disconnected", reason, retryInMs: delay })
    this.retryTimer = setTimeout(() => this.connect(), delay)
  }

  /**
   * Queues PRIVMSG lines (already split) as the token bucket allows: each target's lines in order, targets in
   * turn.
   */
  enqueue(lines: ReadonlyArray<QueuedLine>): void {
    for (const line of lines) {
      const key = line.outgoing?.to.toLowerCase() ?? ""
      const queue = this.queues.get(key)
      if (queue === undefined) this.queues.set(key, [line])
      else queue.push(line)
    }
    this.queued += lines.length
    this.pump()
  }

  // The next line to write: JOIN/PART first, then the first line of the target whose turn it is.
  private next(): QueuedLine | undefined {
    const urgent = this.priority.shift()
    if (urgent !== undefined) return urgent
    for (const [key, queue] of this.queues) {
      const line = queue.shift()!
      this.queues.delete(key)
      if (queue.length > 0) this.queues.set(key, queue)
      this.queued -= 1
      return line
    }
    return undefined
  }

  join(channels: ReadonlyArray<string>): void {
    const fresh = channels.filter((channel) => !this.desired.has(channel.toLowerCase()))
    for (const channel of fresh) this.desired.set(channel.toLowerCase(), channel)
    this.priority.push(...joinLines(fresh))
    this.pump()
  }

  part(channel: string, reason: string | undefined): boolean {
    const known = this.desired.delete(channel.toLowerCase())
    this.priority.push({
      raw: reason === undefined ? `PART ${channel}` : `PART ${channel} :${reason}`,
      outgoing: undefined
    })
    this.pump()
    return known
  }

  /** Resolves once every queued line has been written (immediately when none are queued). */
  drained(): Promise<void> {
    if (this.pending === 0) return Promise.resolve()
    return new Promise((resolve) => this.drainWaiters.push(resolve))
  }

  /** Stops reconnecting, sends QUIT and resolves when the socket closed (or at once when not connected). */
  quit(message: string): Promise<void> {
    const wasConnected = this.status === "connected" && this.client !== undefined
    this.status = "closed"
    clearTimeout(this.retryTimer)
    clearTimeout(this.pumpTimer)
    for (const resolve of this.drainWaiters.splice(0)) resolve()
    if (!wasConnected) {
      this.client?.connection.end()
      return Promise.resolve()
    }
    return new Promise((resolve) => {
      this.closeWaiters.push(resolve)
      this.client?.quit(message)
    })
  }

  // Writes as many queued lines as the token bucket allows, then sleeps until the next token.
  private pump(): void {
    if (this.pumpTimer !== undefined || this.status !== "connected") return
    const now = performance.now()
    this.tokens = Math.min(
      this.options.burst,
      this.tokens + ((now - this.refilledAt) / 1000) * this.options.linesPerSecond
    )
    this.refilledAt = now
    while (this.tokens >= 1 && this.pending > 0 && this.client !== undefined) {
      const next = this.next()!
      this.client.raw(next.raw)
      this.tokens -= 1
      if (next.outgoing !== undefined) this.emit({ ...next.outgoing, at: Date.now() })
    }
    if (this.pending === 0) {
      for (const resolve of this.drainWaiters.splice(0)) resolve()
      return
    }
    const wait = ((1 - this.tokens) / this.options.linesPerSecond) * 1000
    this.pumpTimer = setTimeout(
      () => {
        this.pumpTimer = undefined
        this.pump()
      },
      Math.max(1, wait)
    )
  }
}

// JOIN #a,#b,... lines of at most JOIN_BYTES bytes.
const joinLines = (channels: ReadonlyArray<string>): Array<QueuedLine> => {
  const lines: Array<QueuedLine> = []
  let batch: Array<string> = []
  let size = 0
  for (const channel of channels) {
    if (batch.length > 0 && size + channel.length + 1 > JOIN_BYTES) {
      lines.push({ raw: `JOIN ${batch.join(",")}`, outgoing: undefined })
      batch = []
      size = 0
    }
    batch.push(channel)
    size += channel.length + 1
  }
  if (batch.length > 0) lines.push({ raw: `JOIN ${batch.join(",")}`, outgoing: undefined })
  return lines
}
