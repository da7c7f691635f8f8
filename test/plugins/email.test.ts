import { test } from 'node:test'
import assert from 'node:assert/strict'
import { rooms, users } from '../fixtures.ts'
import { inject, sameOrigin } from '../helper.ts'
import { multipart } from '../support/multipart.ts'
import { connect, identifiers } from '../cable/cable-helper.ts'
import { DELAY_MS, fetchAs, header, MAIL_FROM, recipients, startEmailApp } from './email/support.ts'
import { compiledWorkers } from '../support/compiled-server.ts'

test('someone mentioned while away gets exactly one email after the delay, whose permalink opens the message for them', async (t) => {
  const e = await startEmailApp(t)
  const posted = Date.now()
  const id = await e.post('david', rooms.hq.id, `<p>${e.mention(users.kevin.id)} the launch notes are ready</p>`)
  await e.app.email.settled()
  assert.equal(e.inbox.mails.length, 0, 'nothing is sent before the delay')
  assert.equal(e.pending(), 1)

  const [mail] = await e.inbox.waitFor(1)
  assert.ok(Date.now() - posted >= DELAY_MS, 'sent after the delay')
  assert.equal(mail!.from?.value[0]?.address, 'campfire@example.com')
  assert.equal(header(mail!, 'from'), MAIL_FROM)
  assert.equal(mail!.to && !Array.isArray(mail!.to) ? mail!.to.value[0]?.address : undefined, users.kevin.email)
  assert.deepEqual(e.inbox.envelopes[0], [users.kevin.email])
  assert.equal(mail!.subject, `${users.david.name} mentioned you in HQ (37signals)`)
  const unsubscribe = header(mail!, 'list-unsubscribe')
  assert.match(unsubscribe ?? '', new RegExp(`^<${e.appUrl}/email/unsubscribe/[^>]+>$`))
  assert.equal(header(mail!, 'list-unsubscribe-post'), 'List-Unsubscribe=One-Click')

  assert.match(mail!.text ?? '', /the launch notes are ready/)
  assert.match(mail!.text ?? '', /HQ/)
  assert.match(String(mail!.html), /the launch notes are ready/)
  assert.match(String(mail!.html), /37signals/)
  const permalink = `${e.appUrl}/rooms/${rooms.hq.id}/@${id}`
  assert.ok(mail!.text!.includes(permalink), 'the text part links to the message')
  assert.ok(String(mail!.html).includes(`href="${permalink}"`), 'the HTML part links to the message')

  const opened = await fetchAs(e.origin, await e.cookie('kevin'), permalink.slice(e.appUrl.length))
  assert.equal(opened.status, 200)
  assert.match(await opened.text(), new RegExp(`data-message-id="${id}"`))

  await e.afterDelay()
  assert.equal(e.inbox.mails.length, 1, 'exactly one email')
  assert.equal(e.pending(), 0)
})

test('a Ping sent while away is emailed too', async (t) => {
  const e = await startEmailApp(t)
  await e.post('david', rooms.david_and_kevin.id, '<p>lunch tomorrow?</p>')
  const [mail] = await e.inbox.waitFor(1)
  assert.equal(mail!.subject, `${users.david.name} sent you a Ping (37signals)`)
  assert.match(mail!.text ?? '', /lunch tomorrow\?/)
  assert.deepEqual(recipients(e.inbox), [users.kevin.email])
})

test('an attachment sent in a Ping is named in both parts', async (t) => {
  const e = await startEmailApp(t)
  const { payload, headers } = multipart([{ name: 'message[attachment]', filename: 'q3-plan.txt', type: 'text/plain', data: Buffer.from('the plan') }], { ...sameOrigin, accept: 'text/vnd.turbo-stream.html, text/html' })
  const sent = await inject(e.app, await e.cookie('david'), { method: 'POST', url: `/rooms/${rooms.david_and_kevin.id}/messages`, payload, headers })
  assert.ok(sent.statusCode < 400, `posted: ${sent.statusCode}`)
  const [mail] = await e.inbox.waitFor(1)
  assert.match(mail!.text ?? '', /Attachment: q3-plan\.txt/)
  assert.match(String(mail!.html), /q3-plan\.txt/)
})

test('opening the room before the delay sends nothing', async (t) => {
  const e = await startEmailApp(t)
  await e.post('david', rooms.hq.id, `<p>${e.mention(users.kevin.id)} quick question</p>`)
  await e.app.email.settled()
  assert.equal(e.pending(), 1)
  const opened = await fetchAs(e.origin, await e.cookie('kevin'), `/rooms/${rooms.hq.id}`)
  assert.equal(opened.status, 200)
  await e.afterDelay()
  assert.equal(e.inbox.mails.length, 0)
  assert.equal(e.pending(), 0, 'the sender looked at it and dropped it')
  assert.equal(e.app.email.stats().skipped, 1)
})

test('five mentions within the delay arrive as one email with the five messages', async (t) => {
  const e = await startEmailApp(t)
  for (let i = 1; i <= 5; i++) await e.post('david', rooms.hq.id, `<p>${e.mention(users.kevin.id)} point number ${i}</p>`)
  await e.inbox.waitFor(1)
  await e.afterDelay()
  assert.equal(e.inbox.mails.length, 1)
  const [mail] = e.inbox.mails
  assert.equal(mail!.subject, 'You missed 5 messages (37signals)')
  for (let i = 1; i <= 5; i++) {
    assert.match(mail!.text ?? '', new RegExp(`point number ${i}\\b`))
    assert.match(String(mail!.html), new RegExp(`point number ${i}\\b`))
  }
})

test('someone present in the room gets no email; someone away in it does', async (t) => {
  const e = await startEmailApp(t)
  const cable = { app: e.app, url: e.origin.replace('http', 'ws') + '/cable', origin: e.origin, cookie: e.cookie }
  const kevin = await connect(t, cable, { cookie: await e.cookie('kevin') })
  kevin.subscribe(identifiers.presence('hq'))
  await kevin.confirmed(identifiers.presence('hq'))
  await e.post('david', rooms.hq.id, `<p>${e.mention(users.kevin.id)} ${e.mention(users.jz.id)} standup?</p>`)
  await e.inbox.waitFor(1)
  await e.afterDelay()
  assert.deepEqual(recipients(e.inbox), [users.jz.email])
})

test('a room whose bell is set to nothing never emails', async (t) => {
  const e = await startEmailApp(t)
  const bell = await fetchAs(e.origin, await e.cookie('kevin'), `/rooms/${rooms.hq.id}/involvement?involvement=nothing`, { method: 'PATCH', headers: sameOrigin })
  assert.equal(bell.status, 302)
  await e.post('david', rooms.hq.id, `<p>${e.mention(users.kevin.id)} ${e.mention(users.jz.id)} please review</p>`)
  await e.inbox.waitFor(1)
  await e.afterDelay()
  assert.deepEqual(recipients(e.inbox), [users.jz.email])
})

test('deactivated people and bots get no email, even when they were deactivated after the message was queued', async (t) => {
  const e = await startEmailApp(t)
  await e.post('david', rooms.hq.id, `<p>${e.mention(users.kevin.id)} ${e.mention(users.jz.id)} ${e.mention(users.bender.id)} hello all</p>`)
  await e.app.email.settled()
  assert.equal(e.pending(), 2, 'the bot is never queued')
  const gone = await fetchAs(e.origin, await e.cookie('david'), `/account/users/${users.kevin.id}`, { method: 'DELETE', headers: sameOrigin })
  assert.equal(gone.status, 302)
  await e.inbox.waitFor(1)
  await e.afterDelay()
  assert.deepEqual(recipients(e.inbox), [users.jz.email])
  await e.post('david', rooms.hq.id, `<p>${e.mention(users.kevin.id)} are you there?</p>`)
  await e.app.email.settled()
  assert.equal(e.pending(), 0, 'a deactivated person is never queued')
})

test('the unsubscribe link turns the emails off without a session; a tampered token is a 404', async (t) => {
  const e = await startEmailApp(t)
  await e.post('david', rooms.hq.id, `<p>${e.mention(users.kevin.id)} first</p>`)
  const [mail] = await e.inbox.waitFor(1)
  const url = /^<(.+)>$/.exec(header(mail!, 'list-unsubscribe') ?? '')![1]!
  assert.ok(mail!.text!.includes(url), 'the text part carries the same link')
  const path = url.slice(e.appUrl.length)

  const page = await fetchAs(e.origin, null, path)
  assert.equal(page.status, 200)
  assert.match(await page.text(), /Stop emailing me/)
  assert.equal(e.app.store.read((m) => m.emailPreferences.wantsMissedMessages(users.kevin.id)), true, 'following the link alone changes nothing')

  const tampered = path.replace(/.(?=[^/]*$)/, (c) => (c === 'A' ? 'B' : 'A'))
  assert.equal((await fetchAs(e.origin, null, tampered)).status, 404)
  const tamperedPost = await fetchAs(e.origin, null, tampered, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' })
  assert.equal(tamperedPost.status, 404)
  assert.equal(e.app.store.read((m) => m.emailPreferences.wantsMissedMessages(users.kevin.id)), true)

  // RFC 8058: the mail client posts from nowhere, with no cookie.
  const oneClick = await fetchAs(e.origin, null, path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' }, body: 'List-Unsubscribe=One-Click' })
  assert.equal(oneClick.status, 200)
  assert.equal(e.app.store.read((m) => m.emailPreferences.wantsMissedMessages(users.kevin.id)), false)

  await e.post('david', rooms.hq.id, `<p>${e.mention(users.kevin.id)} ${e.mention(users.jz.id)} second</p>`)
  await e.inbox.waitFor(2)
  await e.afterDelay()
  assert.deepEqual(recipients(e.inbox), [users.kevin.email, users.jz.email])

  // The profile shows the switch off, and turns it back on.
  const profile = await fetchAs(e.origin, await e.cookie('kevin'), '/users/me/profile')
  assert.match(await profile.text(), /Email me about mentions and Pings I miss[\s\S]*aria-checked="false"/)
  const on = await fetchAs(e.origin, await e.cookie('kevin'), '/users/me/email_preference', {
    method: 'POST', headers: { ...sameOrigin, 'content-type': 'application/x-www-form-urlencoded' }, body: 'email_preference%5Bmissed_messages%5D=1',
  })
  assert.equal(on.status, 302)
  assert.equal(e.app.store.read((m) => m.emailPreferences.wantsMissedMessages(users.kevin.id)), true)
  const bad = await fetchAs(e.origin, await e.cookie('kevin'), '/users/me/email_preference', {
    method: 'POST', headers: { ...sameOrigin, 'content-type': 'application/x-www-form-urlencoded' }, body: 'email_preference%5Bmissed_messages%5D=maybe',
  })
  assert.equal(bad.status, 400)
})

test('with the SMTP server down the email waits, and is sent once it is back up', async (t) => {
  const e = await startEmailApp(t)
  await e.inbox.stop()
  await e.post('david', rooms.hq.id, `<p>${e.mention(users.kevin.id)} are you getting this?</p>`)
  const deadline = Date.now() + 10_000
  while (e.app.email.stats().retried < 2) {
    assert.ok(Date.now() < deadline, 'retried while down')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  assert.equal(e.pending(), 1)
  assert.ok(e.log.lines.some((line) => line.msg === 'email not sent (temporary failure); will retry'))
  await e.inbox.start()
  await e.inbox.waitFor(1)
  await e.afterDelay()
  assert.equal(e.inbox.mails.length, 1)
  assert.match(e.inbox.mails[0]!.text ?? '', /are you getting this\?/)
  assert.equal(e.pending(), 0)
})

test('a permanent 5xx rejection is given up on and logged once', async (t) => {
  const e = await startEmailApp(t)
  e.inbox.refuse = { code: 550, message: 'No such mailbox' }
  await e.post('david', rooms.hq.id, `<p>${e.mention(users.kevin.id)} hello?</p>`)
  const deadline = Date.now() + 10_000
  while (e.app.email.stats().gaveUp < 1) {
    assert.ok(Date.now() < deadline, 'given up')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  await e.afterDelay()
  const logged = e.log.lines.filter((line) => line.msg === 'email refused by the SMTP server; given up')
  assert.equal(logged.length, 1)
  assert.match(String(logged[0]!.reason), /^550 /)
  assert.equal(e.app.email.stats().retried, 0)
  assert.equal(e.pending(), 0)
  assert.equal(e.inbox.mails.length, 0)
})

test('hostile HTML in a message arrives as harmless text in both parts, with no remote images', async (t) => {
  const e = await startEmailApp(t)
  const hostile = `<p>${e.mention(users.kevin.id)} look <img src="https://evil.example/pixel.png"><script>alert(1)</script>` +
    `<a href="javascript:alert(2)">click</a> <style>body{background:url(https://evil.example/bg.png)}</style> &lt;img src=https://evil.example/typed.png onerror=alert(3)&gt;</p>`
  await e.post('david', rooms.hq.id, hostile)
  const [mail] = await e.inbox.waitFor(1)
  const html = String(mail!.html)
  assert.doesNotMatch(html, /<script/i)
  assert.doesNotMatch(html, /javascript:/i)
  assert.doesNotMatch(html, /<style[^>]*>[^<]*evil/i)
  assert.doesNotMatch(html, /url\(/i)
  const sources = [...html.matchAll(/<img[^>]*\ssrc="([^"]*)"/gi)].map((match) => match[1]!)
  for (const src of sources) assert.match(src, /^cid:/, `only inline images: ${src}`)
  assert.doesNotMatch(html, /<img[^>]*evil/i)
  assert.ok(html.includes('&lt;img src=https://evil.example/typed.png onerror=alert(3)&gt;'), 'typed markup is shown as text')
  assert.ok(mail!.text!.includes('<img src=https://evil.example/typed.png onerror=alert(3)>'), 'the text part has it as typed')
  assert.doesNotMatch(mail!.text ?? '', /<script/i)
  for (const attachment of mail!.attachments) assert.equal(attachment.contentDisposition, 'inline')
})

test('two sending processes on one database send each email once', async (t) => {
  const first = await startEmailApp(t, { email: { sender: true } })
  const second = await startEmailApp(t, { storage: first.storage, inbox: first.inbox, fixtures: false, email: { sender: true } })
  assert.ok(first.app.email.sending && second.app.email.sending)
  for (let i = 0; i < 3; i++) await first.post('david', rooms.hq.id, `<p>${first.mention(users.kevin.id)} ${first.mention(users.jz.id)} round ${i}</p>`)
  await first.inbox.waitFor(2)
  await first.afterDelay()
  await second.afterDelay()
  assert.deepEqual(recipients(first.inbox).sort(), [users.jz.email, users.kevin.email].sort())
  assert.equal(first.app.email.stats().sent + second.app.email.stats().sent, 2)
})

test('without SMTP_URL nothing is queued and no sender runs', async (t) => {
  const { buildTestApp } = await import('../helper.ts')
  const { app } = await buildTestApp(t)
  assert.equal(app.email.enabled, false)
  assert.equal(app.email.sending, false)
})

test('one process sends, and under WEB_CONCURRENCY only worker 1 does', async (t) => {
  const { buildApp } = await import('../../server/app.ts')
  const { testConfig, tempStorage } = await import('../helper.ts')
  const config = testConfig(tempStorage(t), { SMTP_URL: 'smtp://127.0.0.1:9', MAIL_FROM: 'campfire@example.com', APP_URL: 'https://campfire.example.com' })
  // One process (which migrates the file, as a cluster's primary would), then the workers.
  for (const [workerId, sending] of [[undefined, true], [1, true], [2, false], [3, false]] as const) {
    const app = await buildApp({ config, logger: false, passwordCost: 4, compiledWorkers: await compiledWorkers(), workerId })
    t.after(() => app.close())
    await app.ready()
    assert.equal(app.email.enabled, true)
    assert.equal(app.email.sending, sending, `worker ${workerId}`)
  }
})

test('a post sent with Host: evil.example gives an email whose links and unsubscribe token point at APP_URL', async (t) => {
  const e = await startEmailApp(t)
  const { request } = await import('node:http')
  const { POST_HEADERS } = await import('../routes/messages/support.ts')
  const body = new URLSearchParams({ 'message[body]': `<p>${e.mention(users.kevin.id)} please confirm your account</p>` }).toString()
  const cookie = await e.cookie('david')
  const status = await new Promise<number>((resolve, reject) => {
    const posted = request(`${e.origin}/rooms/${rooms.hq.id}/messages`, { method: 'POST', headers: { ...POST_HEADERS, host: 'evil.example', cookie } }, (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    posted.on('error', reject)
    posted.end(body)
  })
  assert.ok(status >= 200 && status < 400, `posted: ${status}`)
  const [mail] = await e.inbox.waitFor(1)
  const links = [...`${mail!.text}\n${String(mail!.html)}\n${header(mail!, 'list-unsubscribe')}`.matchAll(/https?:\/\/[^\s"<>]+/g)].map((match) => match[0])
  assert.ok(links.length >= 4, `links: ${links.join(' ')}`)
  for (const link of links) assert.ok(link.startsWith(`${e.appUrl}/`), `${link} starts with APP_URL`)
  assert.doesNotMatch(`${mail!.text}${String(mail!.html)}${mail!.headerLines.map((line) => line.line).join('\n')}`, /evil\.example/)
  assert.match(header(mail!, 'list-unsubscribe') ?? '', new RegExp(`^<${e.appUrl}/email/unsubscribe/[^>]+>$`))
})
