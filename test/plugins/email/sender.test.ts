import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { RailsSigning } from '../../../server/lib/rails/signing.ts'
import { mentionAttachmentHtml } from '../../../server/models/rich-text/index.ts'
import { SECRET_KEY_BASE, tempStorage } from '../../helper.ts'
import { CookieJar, formPost, request, startServer, stopServer } from '../../support/server-process.ts'
import { startSmtpInbox } from '../../support/smtp-inbox.ts'

test('an email pending when the server is killed with -9 is sent after the restart, once', { timeout: 120_000 }, async (t) => {
  const inbox = await startSmtpInbox(t)
  const storage = tempStorage(t)
  const env = { CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true', SMTP_URL: inbox.url, MAIL_FROM: 'campfire@example.com', APP_URL: 'https://campfire.example.com', CAMPFIRE_EMAIL_DELAY: '3' }
  const server = await startServer(env)
  t.after(() => stopServer(server, 'SIGKILL'))

  const ada = new CookieJar()
  assert.equal((await request(server.baseUrl, ada, '/first_run', formPost({ 'user[name]': 'Ada', 'user[email_address]': 'ada@example.com', 'user[password]': 'secret123456' }))).status, 302)
  const dbPath = join(storage, 'db', 'production.sqlite3')
  const db = new BetterSqlite3(dbPath, { readonly: true })
  t.after(() => db.close())
  const joinCode = db.prepare('SELECT join_code FROM accounts').pluck().get() as string
  const joined = await request(server.baseUrl, new CookieJar(), `/join/${joinCode}`, formPost({ 'user[name]': 'Bob', 'user[email_address]': 'bob@example.com', 'user[password]': 'secret123456' }))
  assert.equal(joined.status, 302)
  const bobId = db.prepare("SELECT id FROM users WHERE email_address = 'bob@example.com'").pluck().get() as number
  const roomId = db.prepare('SELECT id FROM rooms ORDER BY id LIMIT 1').pluck().get() as number

  const mention = mentionAttachmentHtml(new RailsSigning(SECRET_KEY_BASE).signedGlobalId('User', bobId))
  const posted = await request(server.baseUrl, ada, `/rooms/${roomId}/messages`, formPost({ 'message[body]': `<p>${mention} before the crash</p>` }))
  assert.ok(posted.status === 201 || posted.status === 303, `posted: ${posted.status}`)
  const pending = db.prepare('SELECT count(*) FROM campfire_email_notifications').pluck()
  const deadline = Date.now() + 5000
  while (pending.get() !== 1) {
    assert.ok(Date.now() < deadline, 'the email was queued')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }

  server.child.kill('SIGKILL')
  await new Promise((resolve) => (server.child.exitCode !== null || server.child.signalCode !== null ? resolve(null) : server.child.once('exit', resolve)))
  assert.equal(server.child.signalCode, 'SIGKILL')
  assert.equal(inbox.mails.length, 0, 'nothing was sent before the kill')

  assert.doesNotMatch(server.output(), /Email is off/)
  const restarted = await startServer(env)
  t.after(() => stopServer(restarted, 'SIGKILL'))
  const [mail] = await inbox.waitFor(1, 30_000)
  assert.deepEqual(inbox.envelopes[0], ['bob@example.com'])
  assert.match(mail!.subject ?? '', /^Ada mentioned you in /)
  assert.match(mail!.text ?? '', /before the crash/)
  await new Promise((resolve) => setTimeout(resolve, 1500))
  assert.equal(inbox.mails.length, 1, 'sent once')
  assert.equal(pending.get(), 0)
})

test('without SMTP_URL the server says so in one boot line, and with it says nothing of the kind', { timeout: 120_000 }, async (t) => {
  const server = await startServer({ CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE, DISABLE_SSL: 'true' })
  t.after(() => stopServer(server, 'SIGKILL'))
  assert.equal(server.output().split('\n').filter((line) => line.includes('Email is off: SMTP_URL is not set')).length, 1)
})

test('hostile names in the recipient, the poster and the room add no recipient and no header: one RCPT, one To, the names shown as written', async (t) => {
  const { startEmailApp, header, recipients } = await import('./support.ts')
  const { rooms, users } = await import('../../fixtures.ts')
  const e = await startEmailApp(t)
  const recipientName = 'Jason <relay-1@evil.example>, Mr <relay-2@evil.example>, Jason'
  const posterName = 'David "<relay-3@evil.example>"\r\nBcc: relay-4@evil.example'
  const roomName = 'HQ\r\nCc: relay-5@evil.example, =?utf-8?q?relay-6@evil.example?='
  e.app.store.writeNow((m) => {
    m.db.prepare('UPDATE users SET name = ? WHERE id = ?').run(recipientName, users.kevin.id)
    m.db.prepare('UPDATE users SET name = ? WHERE id = ?').run(posterName, users.david.id)
    m.db.prepare('UPDATE rooms SET name = ? WHERE id = ?').run(roomName, rooms.hq.id)
  })
  await e.post('david', rooms.hq.id, `<p>${e.mention(users.kevin.id)} read this</p>`)
  const [mail] = await e.inbox.waitFor(1)
  await e.afterDelay()

  assert.deepEqual(recipients(e.inbox), [users.kevin.email], 'the SMTP server was given exactly one RCPT')
  const to = mail!.to && !Array.isArray(mail!.to) ? mail!.to.value : []
  assert.deepEqual(to.map((address) => address.address), [users.kevin.email], 'one address in To')
  assert.equal(to[0]!.name, recipientName, 'the name is shown as written')
  assert.equal(mail!.cc, undefined)
  assert.equal(mail!.bcc, undefined)
  for (const name of ['cc', 'bcc']) assert.equal(header(mail!, name), undefined, `no ${name} header`)
  assert.deepEqual(mail!.from?.value.map((address) => address.address), ['campfire@example.com'])
  assert.equal(mail!.subject, `${posterName.replace(/\r\n/g, ' ')} mentioned you in ${roomName.replace(/\r\n/g, ' ')} (37signals)`)
  assert.equal(mail!.headerLines.filter((line) => line.key === 'subject').length, 1)
  assert.equal(mail!.headerLines.filter((line) => line.key === 'to').length, 1)
})

test('SMTP_URL without APP_URL stops the boot with one line naming APP_URL, exit 78, before anything listens', { timeout: 120_000 }, async (t) => {
  const { execFile } = await import('node:child_process')
  const { compiledServer } = await import('../../support/compiled-server.ts')
  const env = { ...process.env, CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE, DISABLE_SSL: 'true', HTTP_PORT: '0', HTTP_BIND: '127.0.0.1', SMTP_URL: 'smtp://127.0.0.1:9', MAIL_FROM: 'campfire@example.com', APP_URL: '' }
  const main = await compiledServer()
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile('node', [main], { env }, (error, stdout, stderr) => resolve({ code: child.exitCode ?? (error as { code?: number } | null)?.code ?? 0, stdout, stderr }))
  })
  assert.equal(code, 78)
  assert.equal(stderr.trim().split('\n').length, 1)
  assert.match(stderr.trim(), /^Campfire cannot start: APP_URL is required with SMTP_URL/)
  assert.doesNotMatch(stdout, /Server listening/)
})
