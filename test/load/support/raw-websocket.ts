// A deliberately small WebSocket client for the cable benchmark (test/load/cable.ts): one
// net.Socket per client, the HTTP/1.1 upgrade written by hand, and server frames parsed straight
// out of one shared read buffer (net's `onread`), so the generator spends its single core on
// counting frames rather than on stream machinery. It speaks exactly what the benchmark needs:
// masked text frames out; text, ping (answered with pong) and close in. No extensions
// (permessage-deflate is never offered), so frames arrive as the server wrote them.
import { createHash, randomBytes, randomFillSync } from 'node:crypto'
import net from 'node:net'

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'
const HEADER_END = Buffer.from('\r\n\r\n')
// Every socket reads into this one buffer; a frame split across reads is copied out.
const SHARED_READ = Buffer.allocUnsafe(256 * 1024)
const MASK = Buffer.alloc(4)

export interface RawSocketOptions {
  host: string
  port: number
  path: string
  headers: Record<string, string>
  protocols: string[]
  handshakeTimeoutMs: number
}

export interface RawSocketEvents {
  // The upgrade was answered 101 with the right accept key; `protocol` is what the server chose.
  onOpen(protocol: string | null): void
  // A complete text frame. `payload` is only valid during the call (it may point into the shared buffer).
  onText(payload: Buffer, at: number): void
  // The handshake failed (status or reason) or the socket closed; called once.
  onClose(reason: string, wasOpen: boolean): void
}

export class RawWebSocket {
  private readonly socket: net.Socket
  private readonly key = randomBytes(16).toString('base64')
  private state: 'connecting' | 'handshake' | 'open' | 'closed' = 'connecting'
  private pending: Buffer | null = null
  private fragments: Buffer[] | null = null
  private readonly timer: NodeJS.Timeout
  framesIn = 0
  bytesIn = 0
  closeCode: number | null = null

  constructor(
    private readonly options: RawSocketOptions,
    private readonly events: RawSocketEvents,
  ) {
    this.socket = net.connect({
      host: options.host,
      port: options.port,
      noDelay: true,
      onread: { buffer: SHARED_READ, callback: (n: number, buf: Buffer) => this.read(n, buf) },
    } as net.NetConnectOpts)
    this.socket.once('connect', () => this.sendUpgrade())
    this.socket.on('error', (error) => this.finish(`error: ${error.message}`))
    this.socket.once('close', () => this.finish('closed'))
    this.timer = setTimeout(() => {
      if (this.state === 'connecting' || this.state === 'handshake') {
        this.finish(`handshake timeout after ${options.handshakeTimeoutMs} ms`)
      }
    }, options.handshakeTimeoutMs)
    this.timer.unref()
  }

  get isOpen(): boolean {
    return this.state === 'open'
  }

  sendText(text: string): void {
    if (this.state !== 'open') return
    this.socket.write(encodeFrame(0x1, Buffer.from(text, 'utf8')))
  }

  // A clean close: close frame, then FIN; destroy() cuts it without one.
  close(): void {
    if (this.state === 'open') this.socket.end(encodeFrame(0x8, Buffer.from([0x03, 0xe8])))
    else this.destroy()
  }

  destroy(): void {
    this.socket.destroy()
  }

  private sendUpgrade(): void {
    this.state = 'handshake'
    const { host, port, path, headers, protocols } = this.options
    const lines = [
      `GET ${path} HTTP/1.1`,
      `Host: ${host}:${port}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Key: ${this.key}`,
      'Sec-WebSocket-Version: 13',
      `Sec-WebSocket-Protocol: ${protocols.join(', ')}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ]
    this.socket.write(lines.join('\r\n') + '\r\n\r\n')
  }

  private read(n: number, buf: Buffer): boolean {
    this.bytesIn += n
    let data = buf.subarray(0, n)
    if (this.pending) {
      data = Buffer.concat([this.pending, data])
      this.pending = null
    }
    if (this.state === 'handshake') {
      const end = data.indexOf(HEADER_END)
      if (end === -1) {
        if (data.length > 16 * 1024) this.finish('handshake answer too long')
        else this.pending = Buffer.from(data)
        return true
      }
      const failure = this.checkUpgrade(data.subarray(0, end).toString('latin1'))
      if (failure) {
        this.finish(failure)
        return false
      }
      data = data.subarray(end + 4)
      if (data.length === 0) return true
    }
    if (this.state === 'open') this.parse(data, performance.now())
    return true
  }

  private checkUpgrade(head: string): string | null {
    const [statusLine, ...lines] = head.split('\r\n')
    const status = /^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1]
    if (status !== '101') return `HTTP ${status ?? '?'}`
    const headers = new Map<string, string>()
    for (const line of lines) {
      const colon = line.indexOf(':')
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
    }
    const expected = createHash('sha1').update(this.key + GUID).digest('base64')
    if (headers.get('sec-websocket-accept') !== expected) return 'bad Sec-WebSocket-Accept'
    if (headers.has('sec-websocket-extensions')) return `unexpected extensions: ${headers.get('sec-websocket-extensions')}`
    this.state = 'open'
    clearTimeout(this.timer)
    this.events.onOpen(headers.get('sec-websocket-protocol') ?? null)
    return null
  }

  private parse(data: Buffer, at: number): void {
    let pos = 0
    const length = data.length
    while (this.state === 'open' && length - pos >= 2) {
      const b0 = data[pos]!
      const b1 = data[pos + 1]!
      let size = b1 & 0x7f
      let offset = pos + 2
      if (size === 126) {
        if (length - pos < 4) break
        size = data.readUInt16BE(pos + 2)
        offset = pos + 4
      } else if (size === 127) {
        if (length - pos < 10) break
        size = data.readUInt32BE(pos + 2) * 2 ** 32 + data.readUInt32BE(pos + 6)
        offset = pos + 10
      }
      const masked = (b1 & 0x80) !== 0
      if (masked) offset += 4
      if (length - offset < size) break
      let payload = data.subarray(offset, offset + size)
      if (masked) {
        payload = Buffer.from(payload)
        for (let i = 0; i < payload.length; i++) payload[i]! ^= data[offset - 4 + (i & 3)]!
      }
      pos = offset + size
      this.frame(b0 & 0x0f, (b0 & 0x80) !== 0, payload, at)
    }
    if (pos < length && this.state === 'open') this.pending = Buffer.from(data.subarray(pos))
  }

  private frame(opcode: number, fin: boolean, payload: Buffer, at: number): void {
    switch (opcode) {
      case 0x0: // continuation
        if (!this.fragments) return
        this.fragments.push(Buffer.from(payload))
        if (fin) {
          const whole = Buffer.concat(this.fragments)
          this.fragments = null
          this.text(whole, at)
        }
        return
      case 0x1:
        if (fin) this.text(payload, at)
        else this.fragments = [Buffer.from(payload)]
        return
      case 0x8:
        this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005
        this.socket.end(encodeFrame(0x8, payload.subarray(0, 2)))
        this.finish(`server closed (${this.closeCode})`)
        return
      case 0x9:
        this.socket.write(encodeFrame(0xa, payload))
        return
      default: // binary and pong: not part of Action Cable
        return
    }
  }

  private text(payload: Buffer, at: number): void {
    this.framesIn++
    this.events.onText(payload, at)
  }

  private finish(reason: string): void {
    if (this.state === 'closed') return
    const wasOpen = this.state === 'open'
    this.state = 'closed'
    clearTimeout(this.timer)
    this.socket.destroy()
    this.events.onClose(reason, wasOpen)
  }
}

// Client frames are always masked (RFC 6455 §5.3).
function encodeFrame(opcode: number, payload: Buffer): Buffer {
  const size = payload.length
  const headerSize = size < 126 ? 2 : size < 65536 ? 4 : 10
  const frame = Buffer.allocUnsafe(headerSize + 4 + size)
  frame[0] = 0x80 | opcode
  if (size < 126) frame[1] = 0x80 | size
  else if (size < 65536) {
    frame[1] = 0x80 | 126
    frame.writeUInt16BE(size, 2)
  } else {
    frame[1] = 0x80 | 127
    frame.writeUInt32BE(Math.floor(size / 2 ** 32), 2)
    frame.writeUInt32BE(size >>> 0, 6)
  }
  randomFillSync(MASK)
  MASK.copy(frame, headerSize)
  for (let i = 0; i < size; i++) frame[headerSize + 4 + i] = payload[i]! ^ MASK[i & 3]!
  return frame
}
