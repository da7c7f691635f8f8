import type { FastifyInstance } from 'fastify'
import type { Mailbox, Mailer } from '../../lib/mailer.ts'
import { MAX_PENDING_PER_PERSON } from '../../models/email/notification.ts'
import { missedMessagesEmail } from '../../rendering/missed-messages-email.ts'
import { EMAIL_UNSUBSCRIBE_PURPOSE, unsubscribePath } from './unsubscribe-token.ts'

export interface EmailSenderOptions {
  from: Mailbox
  // APP_URL: every link in an email starts with it (never the Host header a post came with).
  origin: string
  delayMs: number
  // How often due rows are looked for (default: a tenth of the delay, from 50 ms to 5 s).
  pollMs?: number
  // The first retry after a temporary failure waits this long, each next one twice as long (default 30 s, at most an hour).
  retryBaseMs?: number
  // Temporary failures in a row after which an email is given up (default 10).
  maxAttempts?: number
  // SMTP connection, greeting and socket timeouts (default 30 s).
  timeoutMs?: number
}

const PEOPLE_PER_TICK = 20
// Emails on their way at once (the mailer's pool holds as many SMTP connections). One: with
// 1,000 due at once (bench:email, sending), 4 sent about three times as many per second but the
// server's own p99 for a post was 45 ms, against 29 ms with one and 12-14 ms with none due; one
// at a time still sends thousands an hour.
export const SENDING_AT_ONCE = 1
const LONGEST_RETRY_MS = 60 * 60 * 1000
const LOGO_KEPT_MS = 60_000

// Sends what is due, one person at a time, on its own timer (never inside a request). Each
// person's due rows are claimed (a lease in SQLite) before sending and deleted once the SMTP
// server has taken the email; a temporary failure gives them back with a later due time, a
// permanent one (5xx), or too many temporary ones, deletes them and is logged once.
export class EmailSender {
  private timer: NodeJS.Timeout | null = null
  private running: Promise<void> | null = null
  private stopped = false
  private logo: { at: number; png: Buffer | null } | null = null
  private readonly counts = { sent: 0, retried: 0, gaveUp: 0, skipped: 0 }
  private readonly pollMs: number
  private readonly leaseMs: number

  constructor(
    private readonly app: FastifyInstance,
    private readonly mailer: Mailer,
    private readonly options: EmailSenderOptions,
  ) {
    this.pollMs = options.pollMs ?? Math.min(5000, Math.max(50, Math.round(options.delayMs / 10)))
    this.leaseMs = 3 * (options.timeoutMs ?? 30_000) + 10_000
  }

  start(): void {
    if (this.timer || this.stopped) return
    this.timer = setInterval(() => void this.tick(), this.pollMs)
    this.timer.unref()
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    await this.running
    this.mailer.close()
  }

  stats() {
    return { ...this.counts }
  }

  // One pass over what is due; a pass already under way is waited for instead.
  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve()
    this.running ??= this.pass()
      .catch((error: unknown) => this.app.log.error({ err: error }, 'the email sender failed'))
      .finally(() => (this.running = null))
    return this.running
  }

  // Goes on while whole batches are due, a turn of the event loop between people.
  private async pass(): Promise<void> {
    for (;;) {
      const now = Date.now()
      const people = this.app.store.read((m) => m.emailNotifications.dueUsers(now, PEOPLE_PER_TICK))
      for (let i = 0; i < people.length; i += SENDING_AT_ONCE) {
        if (this.stopped) return
        await new Promise((resolve) => setImmediate(resolve))
        await Promise.all(people.slice(i, i + SENDING_AT_ONCE).map((userId) => this.sendTo(userId)))
      }
      if (people.length < PEOPLE_PER_TICK) return
    }
  }

  private async sendTo(userId: number): Promise<void> {
    const now = Date.now()
    const lease = now + this.leaseMs
    if (!(await this.app.store.write((m) => m.emailNotifications.claim(userId, now, lease)))) return
    const { rows, recipient, messages, accountName } = this.app.store.read((m) => {
      const rows = m.emailNotifications.claimed(userId, lease)
      return { rows, recipient: m.missedMessages.recipient(userId), messages: m.missedMessages.stillMissed(userId, rows), accountName: m.missedMessages.accountName() }
    })
    if (!recipient || messages.length === 0) {
      this.counts.skipped += rows.length
      return this.app.store.write((m) => m.emailNotifications.finish(userId, lease))
    }
    const { origin } = this.options
    const token = this.app.signing.signedId('User', userId, EMAIL_UNSUBSCRIBE_PURPOSE)
    const unsubscribeUrl = origin + unsubscribePath(token)
    const content = missedMessagesEmail({ accountName, recipient, messages, more: rows.length >= MAX_PENDING_PER_PERSON, origin, unsubscribeUrl })
    const logo = await this.logoPng()
    const html = this.app.renderPartial('mailers/missed_messages', { ...content.view, logoCid: logo ? 'logo@campfire' : null })
    const outcome = await this.mailer.send({
      from: this.options.from,
      to: { name: recipient.name, address: recipient.email_address },
      subject: content.subject,
      text: content.text,
      html,
      headers: { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click', 'Auto-Submitted': 'auto-generated' },
      attachments: logo ? [{ filename: 'logo.png', content: logo, cid: 'logo@campfire', contentType: 'image/png' }] : [],
    })
    if (outcome.sent) {
      this.counts.sent += 1
      return this.app.store.write((m) => m.emailNotifications.finish(userId, lease))
    }
    const attempts = (rows[0]?.attempts ?? 0) + 1
    if (outcome.permanent || attempts >= (this.options.maxAttempts ?? 10)) {
      this.counts.gaveUp += 1
      this.app.log.error({ userId, messages: messages.length, attempts, reason: outcome.reason }, outcome.permanent ? 'email refused by the SMTP server; given up' : 'email not sent after repeated temporary failures; given up')
      return this.app.store.write((m) => m.emailNotifications.finish(userId, lease))
    }
    this.counts.retried += 1
    const waitMs = Math.min(LONGEST_RETRY_MS, (this.options.retryBaseMs ?? 30_000) * 2 ** (attempts - 1))
    this.app.log.warn({ userId, attempts, retryInMs: waitMs, reason: outcome.reason }, 'email not sent (temporary failure); will retry')
    await this.app.store.write((m) => m.emailNotifications.retryAt(userId, lease, Date.now() + waitMs))
  }

  // The account's logo (or the stock icon), small, as the logo route serves it; kept a minute.
  private async logoPng(): Promise<Buffer | null> {
    if (this.logo && Date.now() - this.logo.at < LOGO_KEPT_MS) return this.logo.png
    const response = await this.app.inject({ method: 'GET', url: '/account/logo?size=small' })
    const png = response.statusCode === 200 && String(response.headers['content-type']).startsWith('image/png') ? response.rawPayload : null
    this.logo = { at: Date.now(), png }
    return png
  }
}
