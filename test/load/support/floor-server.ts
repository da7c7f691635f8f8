// The floor for bench:cable's post → all clients figure and bench:fanout's acknowledgement →
// last socket: a bare Node broadcaster that does nothing but what any fan-out must do on this
// machine. WebSocket clients upgrade with no checks and are never read from;
// `POST /go?seq=N&bytes=B` writes about B bytes to every client in one loop of socket.write calls
// (a text frame carrying the marker bmk<N>z and, like a post's unread notice, a short second
// frame; with `&frames=1`, the marked frame alone, as big as an unread notice is) and answers
// with how long that loop took and how many bytes each client was sent. No database, no
// rendering, no JSON, no channels.
//
//   node --import tsx test/load/support/floor-server.ts PORT     (prints "listening PORT")
import { createHash } from 'node:crypto'
import http from 'node:http'
import type { Socket } from 'node:net'

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'
const NOTICE = textFrame(Buffer.from('{"identifier":"{\\"channel\\":\\"UnreadRoomsChannel\\"}","message":{"roomId":1,"at":1796047293.541}}'))
// Room for `{"message":"`, a marker of up to 20 digits and the closing `"}`; at most a 16-bit length.
const MIN_MARKED_BYTES = 64
const MAX_MARKED_BYTES = 4 + 65_535
const DIGITS = /^\d{1,15}$/
const clients = new Set<Socket>()

function textFrame(payload: Buffer): Buffer {
  const header = payload.length < 126 ? 2 : 4
  const out = Buffer.allocUnsafe(header + payload.length)
  out[0] = 0x81
  if (header === 2) out[1] = payload.length
  else {
    out[1] = 126
    out.writeUInt16BE(payload.length, 2)
  }
  payload.copy(out, header)
  return out
}

// The marked frame and the notice (or, with `single`, the marked frame alone): `bytes` in all,
// or up to 2 more where a frame of exactly that size cannot be encoded (a 128- or 129-byte
// frame), or the nearest size within bounds.
function frames(seq: number, bytes: number, single: boolean): Buffer {
  const marked = markedFrame(seq, Math.min(MAX_MARKED_BYTES, Math.max(MIN_MARKED_BYTES, single ? bytes : bytes - NOTICE.length)))
  return single ? marked : Buffer.concat([marked, NOTICE])
}

function markedFrame(seq: number, marked: number): Buffer {
  const payloadSize = marked - 2 < 126 ? marked - 2 : Math.max(126, marked - 4)
  const payload = Buffer.alloc(payloadSize, 0x20)
  payload.write('{"message":"', 0, 'latin1')
  // The marker sits mid-frame, as a message's text sits mid-way through its HTML.
  payload.write(`bmk${seq}z`, Math.max(12, Math.floor(payloadSize / 2) - 12), 'latin1')
  payload.write('"}', payloadSize - 2, 'latin1')
  return textFrame(payload)
}

const server = http.createServer((request, response) => {
  request.on('error', () => request.destroy())
  const url = new URL(request.url ?? '/', 'http://floor')
  const seq = url.searchParams.get('seq') ?? ''
  const bytes = url.searchParams.get('bytes') ?? ''
  const count = url.searchParams.get('frames') ?? '2'
  if (request.method !== 'POST' || url.pathname !== '/go' || !DIGITS.test(seq) || !DIGITS.test(bytes) || (count !== '1' && count !== '2')) {
    response.writeHead(404).end()
    return
  }
  request.resume()
  request.on('end', () => {
    const wire = frames(Number(seq), Number(bytes), count === '1')
    const started = performance.now()
    for (const socket of clients) socket.write(wire)
    const loopMs = performance.now() - started
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ clients: clients.size, loop_ms: loopMs, bytes: wire.length }))
  })
})

server.on('upgrade', (request: http.IncomingMessage, socket: Socket) => {
  socket.on('error', () => socket.destroy())
  const key = request.headers['sec-websocket-key']
  if (typeof key !== 'string') {
    socket.destroy()
    return
  }
  const accept = createHash('sha1').update(key + GUID).digest('base64')
  socket.setNoDelay(true)
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: actioncable-v1-json\r\n\r\n`)
  clients.add(socket)
  socket.on('data', () => undefined) // what clients send (pongs, closes) is ignored
  socket.on('close', () => clients.delete(socket))
})

const port = Number(process.argv[2] ?? 0)
server.listen(port, '127.0.0.1', () => {
  const address = server.address()
  console.log(`listening ${typeof address === 'object' && address ? address.port : port}`)
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0))
