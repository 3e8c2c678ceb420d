// IRC's framing on a raw socket, for the test clients and fake servers that speak the protocol by hand: the text is
// split at CRLF and each whole line handed on in order; a partial line waits for the rest of it.
import type { Socket } from "node:net"

/** Reads `socket` as UTF-8 and calls `onLine` with each CRLF-terminated line (without the CRLF). */
export const onLines = (socket: Socket, onLine: (line: string) => void): void => {
  let buffer = ""
  socket.setEncoding("utf8")
  socket.on("data", (chunk: string) => {
    buffer += chunk
    let index = buffer.indexOf("\r\n")
    while (index >= 0) {
      const line = buffer.slice(0, index)
      buffer = buffer.slice(index + 2)
      index = buffer.indexOf("\r\n")
      onLine(line)
    }
  })
}
