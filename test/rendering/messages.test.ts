import { test } from 'node:test'
import assert from 'node:assert/strict'
import { serialize } from 'node:v8'
import { parseFragment } from 'parse5'
import { buildTestApp, signIn } from '../helper.ts'
import { emptyCacheStats } from '../../server/rendering/cache-stats.ts'
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

test('a mention renders inline, as a span.mention with the person’s avatar link and name and no white space of its own', async (t) => {
  const { app } = await buildTestApp(t)
  const sgid = app.signing.signedGlobalId('User', users.kevin.id)
  const response = await post(app, await signIn(app, 'david'), hq, `<div>hey <action-text-attachment sgid="${sgid}" content-type="application/vnd.campfire.mention"></action-text-attachment> look</div>`, 'mention1')
  const presentation = elementContent(response.body, 'presentation_message_mention1')!
  assert.match(presentation, /<span class="mention"[^>]*><a [^>]*href="\/users\/\d+"[^>]*><img [^>]*><\/a>Kevin McConnell<\/span>/)
  assert.match(presentation, new RegExp(`href="/users/${users.kevin.id}"`))
  assert.doesNotMatch(presentation, /<div class="mention"/)
})

// What a browser does with the markup: parse5 is the WHATWG parsing algorithm, so a block element
// inside the <p> would close it here as it does in the page.
function paragraphsAround(html: string, mentionClass = 'mention'): { text: string; mentions: number }[] {
  type Node = { nodeName: string; value?: string; attrs?: { name: string; value: string }[]; childNodes?: Node[] }
  const textOf = (node: Node): string => (node.nodeName === '#text' ? node.value ?? '' : (node.childNodes ?? []).map(textOf).join(''))
  const mentionsIn = (node: Node): number =>
    (node.attrs?.some((a) => a.name === 'class' && a.value.split(' ').includes(mentionClass)) ? 1 : 0) + (node.childNodes ?? []).reduce((sum, child) => sum + mentionsIn(child), 0)
  const found: { text: string; mentions: number }[] = []
  const walk = (node: Node) => {
    if (node.nodeName === 'p') found.push({ text: textOf(node).replace(/\s+/g, ' ').trim(), mentions: mentionsIn(node) })
    for (const child of node.childNodes ?? []) walk(child)
  }
  walk(parseFragment(html) as unknown as Node)
  return found
}

test('a mention inside a paragraph keeps the sentence in one paragraph once an HTML parser has read the page', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const sgid = app.signing.signedGlobalId('User', users.kevin.id)
  const mention = `<action-text-attachment sgid="${sgid}" content-type="application/vnd.campfire.mention"></action-text-attachment>`
  await post(app, cookie, hq, `<p>Hi ${mention} can you check the deploy?</p><p>${mention}, ship it.</p>`, 'mention2')
  const { id } = one<{ id: number }>(app, "SELECT id FROM messages WHERE client_message_id = 'mention2'")!

  const room = (await get(app, cookie, `/rooms/${hq}/@${id}`)).body
  const search = (await get(app, cookie, '/searches?q=deploy')).body
  for (const [where, html] of [['the room page', room], ['the search results', search]] as const) {
    const presentation = elementContent(html, 'presentation_message_mention2')
    assert.ok(presentation, `the message is on ${where}`)
    assert.deepEqual(paragraphsAround(presentation), [
      { text: 'Hi Kevin McConnell can you check the deploy?', mentions: 1 },
      { text: 'Kevin McConnell, ship it.', mentions: 1 },
    ], where)
  }
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

test('a message of Latin-1 text is kept one byte a character, its author’s bio and the quick boosts included', async (t) => {
  const { app } = await buildTestApp(t)
  app.store.writeNow((m) => m.db.prepare("UPDATE users SET bio = 'Designer · café owner' WHERE id = ?").run(users.jz.id))
  const [message] = await seed(app, hq, users.jz.id, 1, 'plain words, and café')
  const fragment = () => app.store.read((m) => app.messageFragments.renderEach(m, [m.messages.find(message!.id)!], { origin: 'http://campfire.test', viewerId: users.david.id, stats: emptyCacheStats() })[0]!)
  const rendered = fragment()
  assert.match(rendered, /<span class="message__author" title="[^"&]+ &ndash; Designer · café owner">/)
  assert.match(rendered, /data-emoji="&#x2764;&#xFE0F;"/)
  const kept = fragment()
  assert.equal(kept, rendered)
  assert.equal(serialize(kept)[2], 0x22, 'one byte a character (V8 serializes two-byte strings as 0x63)')
  assert.equal(app.messageFragments.size.entries, 1)
  assert.ok(app.messageFragments.size.bytes < rendered.length + 200, 'the cache counts what it holds')
})
