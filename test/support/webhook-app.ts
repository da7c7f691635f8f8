import { randomBytes } from 'node:crypto'
import type { TestContext } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../server/app.ts'
import type { Config } from '../../server/config.ts'
import { RateLimit } from '../../server/lib/rate-limit.ts'
import { mentionAttachmentHtml } from '../../server/models/rich-text/index.ts'
import type { WebhookOptions } from '../../server/plugins/webhooks.ts'
import { loadFixtures, type UserName } from '../fixtures.ts'
import { capturedLog, signIn, tempStorage, testConfig, type CapturedLog } from '../helper.ts'
import type { CableApp } from '../cable/cable-helper.ts'
import { post as postMessage } from '../routes/messages/support.ts'
import { compiledWorkers } from './compiled-server.ts'

// An app with the fixture cast and its webhook options, listening on loopback (for real
// sockets), its log kept; and the few things the webhook tests do with it.
export interface WebhookApp {
  app: FastifyInstance
  config: Config
  log: CapturedLog
  cable: CableApp
  // Posts as a person through POST /rooms/:id/messages and answers the status and the new id.
  post(name: UserName, roomId: number, body: string): Promise<{ status: number; messageId: number }>
  // A bot (users row, role=bot, 12-character token) in these rooms, with this webhook.
  addBot(name: string, roomIds: number[], url: string | null): Promise<{ id: number; key: string }>
  setWebhook(botId: number, url: string | null): Promise<void>
  mention(userId: number): string
  // The bot's messages in a room, oldest first: rich text, and the attachment when there is one.
  messagesBy(botId: number, roomId: number): BotMessage[]
}

export interface BotMessage {
  id: number
  body: string | null
  filename: string | null
  content_type: string | null
  byte_size: number | null
}

export async function startWebhookApp(t: TestContext, options: { webhooks?: WebhookOptions; env?: Record<string, string> } = {}): Promise<WebhookApp> {
  const log = capturedLog()
  const config = testConfig(tempStorage(t), options.env)
  const app = await buildApp({
    config, logger: { level: 'info', stream: log.stream }, passwordCost: 4, compiledWorkers: await compiledWorkers(), signInLimit: new RateLimit(1000, 60_000), webhooks: options.webhooks,
  })
  t.after(() => app.close())
  app.store.writeNow((m) => loadFixtures(m.db))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const cookies = new Map<UserName, Promise<string>>()
  const cookie = (name: UserName) => cookies.get(name) ?? cookies.set(name, signIn(app, name)).get(name)!
  const cable: CableApp = { app, url: `ws://127.0.0.1:${port}/cable`, origin: `http://127.0.0.1:${port}`, cookie }

  return {
    app,
    config,
    log,
    cable,
    async post(name, roomId, body) {
      const response = await postMessage(app, await cookie(name), roomId, body)
      const id = /data-message-id="(\d+)"/.exec(response.body)?.[1]
      return { status: response.statusCode, messageId: Number(id ?? 0) }
    },
    async addBot(name, roomIds, url) {
      const token = randomBytes(9).toString('base64url').slice(0, 12).replace(/[-_]/g, 'x')
      const id = await app.store.write((m) => {
        const now = '2026-03-01 12:00:00.000000'
        const botId = Number(m.db.prepare('INSERT INTO users (name, role, status, bot_token, created_at, updated_at) VALUES (?, 2, 0, ?, ?, ?)').run(name, token, now, now).lastInsertRowid)
        for (const roomId of roomIds) m.memberships.grant(roomId, botId)
        m.webhooks.save(botId, url)
        return botId
      })
      return { id, key: `${id}-${token}` }
    },
    setWebhook: (botId, url) => app.store.write((m) => m.webhooks.save(botId, url)),
    mention: (userId) => mentionAttachmentHtml(app.signing.signedGlobalId('User', userId)),
    messagesBy: (botId, roomId) =>
      app.store.read((m) =>
        m.db.prepare<[number, number], BotMessage>(
          `SELECT messages.id, r.body, b.filename, b.content_type, b.byte_size FROM messages
             LEFT JOIN action_text_rich_texts r ON r.record_type = 'Message' AND r.record_id = messages.id
             LEFT JOIN active_storage_attachments a ON a.record_type = 'Message' AND a.record_id = messages.id
             LEFT JOIN active_storage_blobs b ON b.id = a.blob_id
            WHERE messages.creator_id = ? AND messages.room_id = ? ORDER BY messages.id`,
        ).all(botId, roomId),
      ),
  }
}
