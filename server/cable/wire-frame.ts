// A complete server-to-client WebSocket text frame (RFC 6455 §5.2: FIN, opcode 1, unmasked),
// built once per broadcast and written as is to every subscriber's TCP socket, instead of
// ws framing the same payload again for each of them.
export function wireTextFrame(payload: string | Buffer): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload
  const length = body.length
  const header = length < 126 ? 2 : length < 65_536 ? 4 : 10
  const frame = Buffer.allocUnsafe(header + length)
  frame[0] = 0x81
  if (length < 126) frame[1] = length
  else if (length < 65_536) {
    frame[1] = 126
    frame.writeUInt16BE(length, 2)
  } else {
    frame[1] = 127
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2)
    frame.writeUInt32BE(length >>> 0, 6)
  }
  body.copy(frame, header)
  return frame
}
