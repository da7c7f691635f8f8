import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, signIn } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { elementContent, get, one, post, seed, send } from '../routes/messages/support.ts'
import { lexxyBodyWithEmbed, rubyConf, trixBodyWithEmbed } from '../models/rich-text/bodies.ts'

const hq = rooms.hq.id

const epochMs = (dbTime: string) => Date.parse(`${dbTime.replace(' ', 'T').slice(0, 23)}Z`)

test('a message renders the same HTML for every viewer, its author included', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  await post(app, david, hq, 'the same for all', 'same1')
  const { id } = one<{ id: number }>(app, "SELECT id FROM messages WHERE client_message_id = 'same1'")!
  await send(app, await signIn(app, 'kevin'), 'POST', `/messages/${id}/boosts`, { 'boost[content]': '👍' })
  const bodies = await Promise.all(
    (['david', 'jason', 'jz', 'kevin'] as const).map(async (name) => (await get(app, await signIn(app, name), `/rooms/${hq}/messages/${id}`)).body),
  )
  for (const body of bodies.slice(1)) assert.equal(body, bodies[0])
  assert.doesNotMatch(bodies[0]!, /message--me|message--mentioned/, 'personalisation happens in the browser')
})

test('the message element carries its ids and its times in epoch milliseconds', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, hq, users.jz.id, 1, 'timed')
  const body = (await get(app, await signIn(app, 'kevin'), `/rooms/${hq}/messages/${message!.id}`)).body
  const opener = /<div [^>]*data-message-id="\d+"[^>]*>/.exec(body)![0]
  assert.match(opener, new RegExp(`^<div id="message_${message!.client_message_id}" class="message"`))
  assert.match(opener, new RegExp(`data-user-id="${users.jz.id}"`))
  assert.match(opener, new RegExp(`data-message-id="${message!.id}"`))
  assert.match(opener, new RegExp(`data-message-timestamp="${epochMs(message!.created_at)}"`))
  assert.match(opener, new RegExp(`data-message-updated-at="${epochMs(message!.updated_at)}"`))
  assert.match(opener, new RegExp(`data-sort-value="${epochMs(message!.created_at)}"`))
  assert.match(body, new RegExp(`<turbo-frame id="edit_message_${message!.client_message_id}">`))
  assert.match(body, new RegExp(`<a class="message__permalink"[^>]*href="/rooms/${hq}/@${message!.id}"`))
  assert.match(body, new RegExp(`<turbo-frame id="boosting_message_${message!.client_message_id}">`))
  assert.match(body, new RegExp(`href="/rooms/${hq}/messages/${message!.id}/edit"`))
  assert.match(body, new RegExp(`<strong data-reply-target="author">${users.jz.name}</strong>`))
})

test('an all-emoji message gets message--emoji, a message with words does not', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const emoji = await post(app, cookie, hq, '🎉🔥', 'emoji1')
  const words = await post(app, cookie, hq, '🎉 party', 'emoji2')
  assert.match(emoji.body, /<div id="message_emoji1" class="message message--emoji"/)
  assert.match(words.body, /<div id="message_emoji2" class="message"/)
})

test('a mention renders as a div.mention with the person’s avatar link and name', async (t) => {
  const { app } = await buildTestApp(t)
  const sgid = app.signing.signedGlobalId('User', users.kevin.id)
  const response = await post(app, await signIn(app, 'david'), hq, `<div>hey <action-text-attachment sgid="${sgid}" content-type="application/vnd.campfire.mention"></action-text-attachment> look</div>`, 'mention1')
  const presentation = elementContent(response.body, 'presentation_message_mention1')!
  assert.match(presentation, /<div class="mention"/)
  assert.match(presentation, new RegExp(`href="/users/${users.kevin.id}"`))
  assert.match(presentation, /Kevin McConnell/)
})

test('a message that is only an unfurled link shows the embed card: title, description and image', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const bodies = { trix: trixBodyWithEmbed(rubyConf.href, rubyConf), lexxy: lexxyBodyWithEmbed(rubyConf.href, rubyConf) }
  for (const [editor, body] of Object.entries(bodies)) {
    const response = await post(app, cookie, hq, body, `unfurl${editor}`)
    assert.equal(response.statusCode, 200)
    const presentation = elementContent(response.body, `presentation_message_unfurl${editor}`)!
    // §1.33: "It renders as figure.attachment--og > actiontext-opengraph-embed > .og-embed with title link, description and image".
    assert.match(presentation, /<figure[^>]*class="[^"]*attachment--og/, `${editor}: the card's figure`)
    assert.match(presentation, /<actiontext-opengraph-embed>/, editor)
    assert.match(presentation, /class="og-embed[ "]/, editor)
    assert.match(presentation, /A conference about Ruby/, `${editor}: title`)
    assert.match(presentation, /Three days of talks &amp; hallway chats\./, `${editor}: description`)
    assert.match(presentation, /<img [^>]*src="https:\/\/example\.com\/conference\.png"/, `${editor}: image`)
  }
})

test('a message with text and an unfurled link keeps its text and links the URL', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await post(app, await signIn(app, 'david'), hq, trixBodyWithEmbed(`Hello ${rubyConf.href}`, rubyConf), 'unfurltext')
  const presentation = elementContent(response.body, 'presentation_message_unfurltext')!
  assert.match(presentation, /Hello <a href="https:\/\/example\.com\/conference\/"/)
  assert.match(presentation, /A conference about Ruby/, 'and the card')
})
