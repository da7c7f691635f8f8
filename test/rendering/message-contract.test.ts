import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, signIn } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { elementContent, get, messageIdsInAnyTag, messageIdsInDivs, post, seed, value } from '../routes/messages/support.ts'
import { rubyConf, trixBodyWithEmbed } from '../models/rich-text/bodies.ts'

// A re-statement of the harness's route-contract-v1 message checks (harness.md §2.1): every
// expected message has id="message_<cmid>", a presentation_message_<cmid> div inside its own
// segment, and that div holds every [A-Za-z0-9_]+ word of its search row, in order, as whole words.

const hq = rooms.hq.id

type Segment = { id: number; html: string }

function segments(body: string): Segment[] {
  const openers = [...body.matchAll(/<div\s[^>]*\sdata-message-id="(\d+)"[^>]*>/g)]
  return openers.map((match, index) => ({ id: Number(match[1]), html: body.slice(match.index, openers[index + 1]?.index ?? body.length) }))
}

function words(text: string): string[] {
  return text.match(/[A-Za-z0-9_]+/g) ?? []
}

function isSubsequence(needles: string[], haystack: string[]): boolean {
  let at = 0
  for (const word of haystack) if (at < needles.length && word === needles[at]) at++
  return at === needles.length
}

function checkMessage(app: FastifyInstance, segment: Segment): void {
  const clientMessageId = value<string>(app, 'SELECT client_message_id FROM messages WHERE id = ?', segment.id)!
  assert.match(segment.html, new RegExp(`^<div id="message_${clientMessageId}"`), `message ${segment.id} has its DOM id`)
  const presentation = elementContent(segment.html, `presentation_message_${clientMessageId}`)
  assert.ok(presentation !== null, `message ${segment.id} has a complete presentation div in its segment`)
  const expected = words(value<string>(app, 'SELECT body FROM message_search_index WHERE rowid = ?', segment.id) ?? '')
  assert.ok(expected.length > 0, `message ${segment.id} has words to check`)
  const shown = words(presentation.replace(/<[^>]*>/g, ' '))
  assert.ok(isSubsequence(expected, shown), `message ${segment.id}: ${JSON.stringify(expected)} in ${JSON.stringify(shown)}`)
}

async function postVariety(app: FastifyInstance): Promise<void> {
  const jason = await signIn(app, 'jason')
  const mention = `<action-text-attachment sgid="${app.signing.signedGlobalId('User', users.kevin.id)}" content-type="application/vnd.campfire.mention"></action-text-attachment>`
  const bodies = [
    'bench write 1a2b3c4d',
    'Tom & Jerry\'s "quoted" <not a tag> x<y && y>z',
    '<div><strong>bold</strong> then <em>italic</em> and <del>gone</del></div>',
    '<div>see https://example.com/a_b?x=1&y=2 for details</div>',
    '<pre>const answer_value = 42;\nreturn answer_value</pre>',
    '<blockquote>quoted text</blockquote><cite>Jason Fried <a href="#">link</a></cite>',
    '<ul><li>first item</li><li>second item</li></ul>',
    `<div>hello ${mention} how are you</div>`,
    '🎉 party time 🎉',
    'café naïve résumé',
    trixBodyWithEmbed('look at this ', rubyConf),
    '<h1>Heading words</h1><p>para one</p><p>para two</p>',
  ]
  for (const [index, body] of bodies.entries()) {
    const response = await post(app, jason, hq, body, `variety${index}`)
    assert.equal(response.statusCode, 200, body)
  }
}

test('on the room page every message has its DOM id and a presentation holding every word of its search row', async (t) => {
  const { app } = await buildTestApp(t)
  await seed(app, hq, users.david.id, 10, 'older words')
  await postVariety(app)
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}`)
  const found = segments(response.body)
  assert.equal(found.length, 22)
  assert.deepEqual(messageIdsInAnyTag(response.body), messageIdsInDivs(response.body))
  for (const segment of found) checkMessage(app, segment)
})

test('a history page is a run of messages with nothing but whitespace between them or after the last', async (t) => {
  const { app } = await buildTestApp(t)
  await seed(app, hq, users.david.id, 30, 'older words')
  await postVariety(app)
  const anchor = value<number>(app, 'SELECT max(id) FROM messages')!
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}/messages?before=${anchor}`)
  assert.equal(response.statusCode, 200)
  const found = segments(response.body)
  assert.equal(found.length, 40)
  assert.equal(response.body.slice(0, response.body.search(/<div\s[^>]*data-message-id=/)).trim(), '', 'nothing before the first message')
  for (const segment of found) {
    assert.match(segment.html, /<\/turbo-frame>\s*<\/div>\s*$/, `message ${segment.id} ends its segment with </turbo-frame></div>`)
    checkMessage(app, segment)
  }
})

test('a posted message’s turbo-stream carries the same markup contract', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await post(app, await signIn(app, 'david'), hq, 'contract check words_with_underscores 123', 'contract1')
  const template = /<template>([\s\S]*)<\/template>/.exec(response.body)![1]!
  const found = segments(template)
  assert.equal(found.length, 1)
  assert.match(found[0]!.html, /<\/turbo-frame>\s*<\/div>\s*$/)
  checkMessage(app, found[0]!)
})
