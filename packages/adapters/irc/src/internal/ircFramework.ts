// heed's own typings for the part of irc-framework (CommonJS, no bundled types) that the transport uses.
import { createRequire } from "node:module"
import type { SocketTransport, SocketTransportOptions } from "./socketTransport.ts"

export interface PrivmsgEvent {
  readonly nick: string
  readonly target: string
  readonly message: string
  readonly from_server?: boolean
}

export interface ChannelEvent {
  readonly nick: string
  readonly channel: string
  readonly kicked?: string
  readonly message?: string
}

export interface ClientOptions extends SocketTransportOptions {
  readonly transport: typeof SocketTransport
  readonly nick: string
  readonly username: string
  readonly gecos: string
  readonly password?: string | undefined
  readonly auto_reconnect: false
  readonly enable_echomessage: false
}

export interface Client {
  connect(options: ClientOptions): void
  raw(line: string): void
  quit(message: string): void
  changeNick(nick: string): void
  on(event: "registered", listener: (event: { readonly nick: string }) => void): void
  on(event: "privmsg", listener: (event: PrivmsgEvent) => void): void
  on(event: "join" | "part" | "kick", listener: (event: ChannelEvent) => void): void
  on(event: "nick in use", listener: (event: { readonly nick: string }) => void): void
  on(event: "irc error", listener: (event: { readonly error: string; readonly reason?: string }) => void): void
  on(event: "socket close", listener: (error?: unknown) => void): void
  removeAllListeners(): void
  readonly user: { nick: string }
  readonly connection: {
    end(data?: string, hadError?: boolean): void
  }
}

const require = createRequire(import.meta.url)

export const makeClient = (): Client => {
  const framework = require("irc-framework") as { readonly Client: new () => Client }
  return new framework.Client()
}
