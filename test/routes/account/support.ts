import sharp from 'sharp'
import type { FastifyInstance } from 'fastify'
import { slackRecords } from '../../../server/models/imports/slack-records.ts'

export { botCookie, get, send, query } from '../rooms/support.ts'
export { multipart } from '../../support/multipart.ts'

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

// Someone a Slack import brought in: no password, no email.
export function importedPerson(app: FastifyInstance, name = 'Ada Imported', changes: { bot?: boolean; deactivated?: boolean } = {}): number {
  return app.store.writeNow((m) => slackRecords(m.db).createPerson({ name, emailAddress: null, bio: null, bot: changes.bot ?? false, deactivated: changes.deactivated ?? false }))
}
