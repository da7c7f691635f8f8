import sharp from 'sharp'
import type { FastifyInstance } from 'fastify'
import { sameOrigin } from '../../helper.ts'

export { botCookie, get, send, query } from '../rooms/support.ts'

type Part = { name: string; value: string } | { name: string; filename: string; type: string; data: Buffer }

// A multipart form body, as a browser sends a form with a file.
export function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = '----campfire' + Math.random().toString(16).slice(2)
  const chunks: Buffer[] = []
  for (const part of parts) {
    if ('filename' in part) {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.type}\r\n\r\n`))
      chunks.push(part.data, Buffer.from('\r\n'))
    } else {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`))
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, ...sameOrigin } }
}

// A picture of the given size, in a flat colour.
export function picture(width: number, height: number, format: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 230, g: 90, b: 40 } } }).toFormat(format).toBuffer()
}

export async function dimensions(bytes: Buffer): Promise<{ width?: number; height?: number; format?: string }> {
  const { width, height, format } = await sharp(bytes).metadata()
  return { width, height, format }
}

export function accountRow(app: FastifyInstance) {
  return app.store.read((m) => m.db.prepare('SELECT name, settings, custom_styles, updated_at FROM accounts').get()) as {
    name: string
    settings: string | null
    custom_styles: string | null
    updated_at: string
  }
}

// Adds `count` members named "Person 0001"…, as a bulk insert.
export function addPeople(app: FastifyInstance, count: number, status = 0): void {
  app.store.writeNow((m) => {
    const insert = m.db.prepare(
      "INSERT INTO users (name, email_address, role, status, created_at, updated_at) VALUES (?, ?, 0, ?, '2026-03-02 00:00:00', '2026-03-02 00:00:00')",
    )
    for (let i = 0; i < count; i++) insert.run(`Person ${String(i).padStart(4, '0')}`, `person${i}-${status}@example.com`, status)
  })
}
