// The socket under irc-framework, as a transport of our own (irc-framework takes a `transport` class): TCP, or TLS
// with our trust settings (irc-framework's own passes no CA to tls.connect, so a server with a private CA could
// only be reached with verification off), no Nagle delay (lines go out when due, not behind an unacknowledged
// previous one), and an idle timeout that closes a connection the server stopped answering.
import { EventEmitter } from "node:events"
import * as net from "node:net"
import * as tls from "node:tls"

export interface SocketTransportOptions {
  readonly host: string
  readonly port: number
  readonly tls: boolean
  /** PEM certificates to trust besides the system's roots (TLS only). */
  readonly tls_ca?: string | undefined
  /** Skip checking the server's certificate and name (TLS only; for tests). */
  readonly tls_insecure?: boolean | undefined
  readonly ping_interval: number
  readonly ping_timeout: number
}

// A line longer than this without a line end means the peer is not speaking IRC.
const MAX_PENDING = 64 * 1024

export class SocketTransport extends EventEmitter {
  private socket: net.Socket | undefined
  private connected = false
  private error: Error | undefined
  private pending = ""
  private readonly options: SocketTransportOptions

  constructor(options: SocketTransportOptions) {
    super()
    this.options = options
  }

  isConnected(): boolean {
    return this.connected
  }

  connect(): void {
    this.disposeSocket()
    const { host, port } = this.options
    const socket = this.options.tls
      ? tls.connect({
          host,
          port,
          // SNI only for names; an IP address is still checked against the certificate's IP entries.
          servername: net.isIP(host) === 0 ? host : undefined,
          ca: this.options.tls_ca === undefined ? undefined : [...tls.rootCertificates, this.options.tls_ca],
          rejectUnauthorized: this.options.tls_insecure !== true
        })
      : net.connect({ host, port })
    this.socket = socket
    this.error = undefined
    this.pending = ""
    socket.setNoDelay(true)
    socket.setEncoding("utf8")
    socket.setTimeout((this.options.ping_interval + this.options.ping_timeout) * 1000)
    socket.once(this.options.tls ? "secureConnect" : "connect", () => {
      this.connected = true
      this.emit("open")
    })
    socket.on("data", (chunk: string) => this.onData(chunk))
    socket.on("timeout", () => socket.destroy(new Error("the server sent nothing within the ping timeout")))
    socket.on("error", (error) => {
      this.error = error
    })
    socket.on("close", () => {
      this.connected = false
      this.emit("close", this.error ?? false)
    })
  }

  private onData(chunk: string): void {
    this.pending += chunk
    let end = this.pending.indexOf("\n")
    while (end >= 0) {
      const line = this.pending.slice(0, end).replace(/\r$/, "")
      this.pending = this.pending.slice(end + 1)
      if (line !== "") this.emit("line", line)
      end = this.pending.indexOf("\n")
    }
    if (this.pending.length > MAX_PENDING) this.socket?.destroy(new Error("the server sent a line without an end"))
  }

  writeLine(line: string, callback?: () => void): void {
    if (this.socket !== undefined && this.connected) this.socket.write(`${line}\r\n`, callback)
    else if (callback !== undefined) process.nextTick(callback)
  }

  close(force: boolean): void {
    if (this.socket === undefined) return
    if (force || !this.connected) this.socket.destroy()
    else this.socket.end()
  }

  disposeSocket(): void {
    const socket = this.socket
    this.socket = undefined
    this.connected = false
    if (socket === undefined) return
    socket.removeAllListeners()
    socket.on("error", () => {}) // a late error of a socket we dropped is nobody's business
    socket.destroy()
  }

  setEncoding(encoding: string): boolean {
    return encoding.toLowerCase().replace("-", "") === "utf8"
  }
}
