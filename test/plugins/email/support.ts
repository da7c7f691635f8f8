import type { TestContext } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { ParsedMail } from 'mailparser'
import { buildApp, type AppOptions } from '../../../server/app.ts'
import { RateLimit } from '../../../server/lib/rate-limit.ts'
import { mentionAttachmentHtml } from '../../../server/models/rich-text/index.ts'
import { loadFixtures, type UserName } from '../../fixtures.ts'
import { capturedLog, signIn, testConfig, tempStorage, type CapturedLog } from '../../helper.ts'
import { startSmtpInbox, type SmtpInbox } from '../../support/smtp-inbox.ts'
import { POST_HEADERS } from '../../routes/messages/support.ts'
import { compiledWorkers } from '../../support/compiled-server.ts'

export const DELAY_MS = 400
export const MAIL_FROM = 'Campfire <campfire@example.com>'
// Where people open Campfire: every link in an email starts with it, wherever the server listens.
export const APP_URL = 'https://campfire.example.com'

// An app with the fixture cast listening on loopback, emailing through a real SMTP server of
// its own after DELAY_MS, looking for due emails every 20 ms and retrying after 100 ms.
export interface EmailApp {
  app: FastifyInstance
  inbox: SmtpInbox
  log: CapturedLog
  // Where the server listens, for requests.
  origin: string
  appUrl: string
  storage: string
  cookie(name: UserName): Promise<string>
  post(name: UserName, roomId: number, body: string): Promise<number>
  mention(userId: number): string
  pending(): number
  // Waits the delay and a few passes of the sender more, then everything it is doing.
  afterDelay(): Promise<void>
}

export async function startEmailApp(t: TestContext, options: { storage?: string; inbox?: SmtpInbox; email?: AppOptions['email']; fixtures?: boolean } = {}): Promise<EmailApp> {
  const inbox = options.inbox ?? (await startSmtpInbox(t))
  const storage = options.storage ?? tempStorage(t)
  const log = capturedLog()
  const config = testConfig(storage, { SMTP_URL: inbox.url, MAIL_FROM, APP_URL, CAMPFIRE_EMAIL_DELAY: String(DELAY_MS / 1000) })
  const app = await buildApp({
    config,
    logger: { level: 'info', stream: log.stream },
    passwordCost: 4, compiledWorkers: await compiledWorkers(),
    signInLimit: new RateLimit(1000, 60_000),
    email: { pollMs: 20, retryBaseMs: 100, timeoutMs: 2000, ...options.email },
  })
  t.after(() => app.close())
  if (options.fixtures !== false) app.store.writeNow((m) => loadFixtures(m.db))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const origin = `http://127.0.0.1:${port}`
  const cookies = new Map<UserName, Promise<string>>()
  const cookie = (name: UserName) => cookies.get(name) ?? cookies.set(name, signIn(app, name)).get(name)!
  return {
    app,
    inbox,
    log,
    origin,
    appUrl: APP_URL,
    storage,
    cookie,
    async post(name, roomId, body) {
      // Over real HTTP, as a browser posts.
      const response = await fetchAs(origin, await cookie(name), `/rooms/${roomId}/messages`, { method: 'POST', headers: POST_HEADERS, body: new URLSearchParams({ 'message[body]': body }).toString() })
      const html = await response.text()
      if (!response.ok) throw new Error(`post failed: ${response.status}`)
      return Number(/data-message-id="(\d+)"/.exec(html)?.[1] ?? 0)
    },
    mention: (userId) => mentionAttachmentHtml(app.signing.signedGlobalId('User', userId)),
    pending: () => app.store.read((m) => m.emailNotifications.pending()),
    async afterDelay() {
      await new Promise((resolve) => setTimeout(resolve, DELAY_MS + 200))
      await app.email.settled()
      await app.email.settled()
    },
  }
}

// A real request from outside: fetch with the person's cookie.
export async function fetchAs(origin: string, cookie: string | null, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers)
  if (cookie) headers.set('cookie', cookie)
  return fetch(origin + path, { ...init, headers, redirect: 'manual' })
}

export function header(mail: ParsedMail, name: string): string | undefined {
  return mail.headerLines.find((line) => line.key === name.toLowerCase())?.line.replace(/^[^:]+:\s*/, '').replace(/\r?\n\s+/g, ' ')
}

export function recipients(inbox: SmtpInbox): string[] {
  return inbox.envelopes.flat()
}
