import type { AddressInfo } from 'node:net'
import { simpleParser, type ParsedMail } from 'mailparser'
import { SMTPServer } from 'smtp-server'

// A real SMTP server on loopback (smtp-server) that parses what arrives (mailparser). It can
// refuse every message with a code (`refuse`), and be stopped and started again on its port
// (SMTP down, then up).
export class SmtpInbox {
  readonly mails: ParsedMail[] = []
  // The envelope recipients of each message taken, in order.
  readonly envelopes: string[][] = []
  refuse: { code: number; message: string } | null = null
  port = 0
  private server: SMTPServer | null = null

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`
  }

  async start(port = this.port): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = []
        stream.on('data', (chunk: Buffer) => chunks.push(chunk))
        stream.on('end', () => {
          if (this.refuse) {
            const error = Object.assign(new Error(this.refuse.message), { responseCode: this.refuse.code })
            return callback(error)
          }
          simpleParser(Buffer.concat(chunks), { keepCidLinks: true }).then(
            (mail) => {
              this.mails.push(mail)
              this.envelopes.push(session.envelope.rcptTo.map((to) => to.address))
              callback()
            },
            (error: Error) => callback(error),
          )
        })
      },
    })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => resolve())
    })
    this.port = (server.server.address() as AddressInfo).port
    this.server = server
  }

  async stop(): Promise<void> {
    const server = this.server
    this.server = null
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()))
  }

  async waitFor(count: number, timeoutMs = 10_000): Promise<ParsedMail[]> {
    const deadline = Date.now() + timeoutMs
    while (this.mails.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} emails, got ${this.mails.length}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    return this.mails
  }
}

export async function startSmtpInbox(t: { after: (fn: () => unknown) => void }): Promise<SmtpInbox> {
  const inbox = new SmtpInbox()
  await inbox.start(0)
  t.after(() => inbox.stop())
  return inbox
}
