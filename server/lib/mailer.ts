import type Nodemailer from 'nodemailer'
import type { Transporter } from 'nodemailer'
import { lazyPackage } from './lazy-package.ts'
import type { Mailbox } from './mailbox.ts'

// Sends one email through the SMTP server SMTP_URL names (nodemailer), and says whether a
// failure is worth another try: a 4xx answer or no answer at all (refused, timed out, cut off)
// is temporary; a 5xx answer is permanent. The envelope is nodemailer's, from these mailboxes.
export type { Mailbox }

export interface OutgoingEmail {
  from: Mailbox
  to: Mailbox
  subject: string
  text: string
  html: string
  headers: Record<string, string>
  attachments?: { filename: string; content: Buffer; cid: string; contentType: string }[]
}

export type SendOutcome = { sent: true } | { sent: false; permanent: boolean; reason: string }

// Loaded when the first mailer is made: with SMTP_URL set.
const nodemailer = lazyPackage<typeof Nodemailer>('nodemailer')

export class Mailer {
  private readonly transport: Transporter

  constructor(smtpUrl: string, options: { timeoutMs?: number; connections?: number } = {}) {
    const timeoutMs = options.timeoutMs ?? 30_000
    // A pool of `connections` SMTP connections (default 1).
    this.transport = nodemailer().createTransport({
      url: smtpUrl,
      pool: true,
      maxConnections: options.connections ?? 1,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    } as never)
  }

  async send(email: OutgoingEmail): Promise<SendOutcome> {
    try {
      await this.transport.sendMail({
        ...email,
        subject: oneLine(email.subject),
        envelope: { from: email.from.address, to: [email.to.address] },
        disableFileAccess: true,
        disableUrlAccess: true,
      })
      return { sent: true }
    } catch (error) {
      const { responseCode, message } = error as { responseCode?: number; message?: string }
      const permanent = typeof responseCode === 'number' && responseCode >= 500 && responseCode < 600
      return { sent: false, permanent, reason: (responseCode ? `${responseCode} ` : '') + (message ?? String(error)).slice(0, 300) }
    }
  }

  close(): void {
    this.transport.close()
  }
}

// Control characters (a line break in a room's name) become spaces.
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ')
}
