import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { Mailer } from '../lib/mailer.ts'
import { ROOM_TYPES } from '../models/room.ts'
import type { CreatedMessage } from './message-listeners.ts'
import { EmailSender, SENDING_AT_ONCE, type EmailSenderOptions } from './email/sender.ts'

// Email about missed mentions and Pings (docs/email.md). A new message is queued as rows in
// SQLite (campfire_email_notifications) on a later turn of the event loop, never on the post's
// path; a sender (email/sender.ts) emails each person whose rows are due. Under WEB_CONCURRENCY
// only worker 1 runs the sender (a restarted worker 1 keeps its number), and each person's rows
// are claimed in a write before they are sent, so no two processes send one email. Without
// SMTP_URL nothing is queued or sent.
const MAX_WAITING_MESSAGES = 1000

export interface EmailOptions extends Partial<Omit<EmailSenderOptions, 'delayMs' | 'from' | 'origin'>> {
  config: Config
  workerId?: number
  // Whether this process sends (default: one process, or worker 1 of a cluster).
  sender?: boolean
}

export interface Email {
  readonly enabled: boolean
  readonly sending: boolean
  // Resolves once every message so far is queued and the sender has looked at what is due.
  settled(): Promise<void>
  stats(): { sent: number; retried: number; gaveUp: number; skipped: number }
}

declare module 'fastify' {
  interface FastifyInstance {
    email: Email
  }
}

export default fp(
  async function email(app, options: EmailOptions) {
    const settings = options.config.email
    const waiting: CreatedMessage[] = []
    let flushing: Promise<unknown> = Promise.resolve()
    let closing = false

    function flush(): void {
      const batch = waiting.splice(0)
      if (batch.length === 0 || !settings) return
      const verify = (sgid: string) => app.signing.verifySignedGlobalId(sgid)
      const now = Date.now()
      // Links are made from APP_URL when the email is sent; the row keeps it too.
      const queued = batch.map(({ message, room, creator }) => ({
        messageId: message.id, roomId: room.id, creatorId: creator.id, origin: settings.origin, now, delayMs: settings.delayMs,
        direct: room.type === ROOM_TYPES.direct,
        mentioned: app.store.read((m) => m.messagePusher.mentionedUserIds(message.id, verify)),
      }))
      flushing = app.store
        .write((m) => queued.forEach((n) => m.emailNotifications.enqueue(n)))
        .catch((error: unknown) => app.log.error({ err: error }, 'missed-message emails could not be queued'))
    }

    if (settings) {
      app.messageListeners.add((created) => {
        if (closing) return
        if (waiting.length >= MAX_WAITING_MESSAGES) return app.log.warn({ messageId: created.message.id }, 'email queue is full; message not queued for email')
        if (waiting.length === 0) setImmediate(flush)
        waiting.push(created)
      })
    }

    const runsSender = settings !== null && (options.sender ?? (options.workerId === undefined || options.workerId === 1))
    const sender = runsSender
      ? new EmailSender(app, new Mailer(settings.smtpUrl, { timeoutMs: options.timeoutMs, connections: SENDING_AT_ONCE }), {
          from: settings.from,
          origin: settings.origin,
          delayMs: settings.delayMs,
          pollMs: options.pollMs,
          retryBaseMs: options.retryBaseMs,
          maxAttempts: options.maxAttempts,
          timeoutMs: options.timeoutMs,
        })
      : null
    app.addHook('onReady', async () => sender?.start())

    app.decorate('email', {
      enabled: settings !== null,
      sending: sender !== null,
      async settled() {
        await new Promise((resolve) => setImmediate(resolve))
        await flushing
        await sender?.tick()
      },
      stats: () => sender?.stats() ?? { sent: 0, retried: 0, gaveUp: 0, skipped: 0 },
    } satisfies Email)

    app.addHook('preClose', async () => {
      closing = true
      flush()
      await flushing
      await sender?.stop()
    })
  },
  { name: 'email', dependencies: ['message-listeners', 'auth', 'database'] },
)
