import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { mentionAttachmentHtml, mentionedSgids, OPENGRAPH_CONTENT_TYPE, sanitizeBody } from '../../../server/models/rich-text/index.ts'
import { attachmentSgids, mentionsIn } from '../../../server/models/message/mentionee.ts'
import { messageBasis, webhookJson, withoutMention } from '../../../server/models/webhook/payload.ts'
import { postMessage, postMessageWithAttachment } from '../../../server/models/message/posting.ts'

test('only mentions the server signed count, each sgid once, embeds left out', async (t) => {
  const { app } = await buildTestApp(t)
  const verify = (sgid: string) => app.signing.verifySignedGlobalId(sgid)
  const bender = app.signing.signedGlobalId('User', users.bender.id)
  const room = app.signing.signedGlobalId('Room', rooms.hq.id)
  const html = [
    mentionAttachmentHtml(bender), mentionAttachmentHtml(bender), mentionAttachmentHtml(room),
    mentionAttachmentHtml(`${Buffer.from(`gid://campfire/User/${users.kevin.id}`).toString('base64')}--forged`),
  ].join(' ')
  assert.deepEqual([...mentionsIn(html, verify)], [[bender, users.bender.id]])
  assert.deepEqual([...mentionsIn('no mentions at all', verify)], [])
})

test('the JSON is upstream’s payload, keys in its order, the rich text encoded once for every bot', async (t) => {
  const { app } = await buildTestApp(t)
  const html = `<p>${mentionAttachmentHtml(app.signing.signedGlobalId('User', users.bender.id))} "quotes" & ünïcode\n</p>`
  const searchText = `@${users.bender.name} "quotes" & ünïcode`
  const message = await app.store.write((m) => postMessage(m, { roomId: rooms.hq.id, creatorId: users.kevin.id, clientMessageId: 'c1', body: html, plainText: searchText }))
  const room = app.store.read((m) => m.rooms.find(rooms.hq.id))!
  const target = { botId: users.bender.id, botName: users.bender.name, botToken: 'BenderToken1', url: 'http://127.0.0.1:9/' }
  const json = () => app.store.read((m) => {
    const basis = messageBasis(m, message, html, mentionsIn(html, (sgid) => app.signing.verifySignedGlobalId(sgid)))
    return webhookJson(basis, room, message, { id: users.kevin.id, name: users.kevin.name }, target)
  })
  const expected = {
    user: { id: users.kevin.id, name: users.kevin.name },
    room: { id: rooms.hq.id, name: 'HQ', path: `/rooms/${rooms.hq.id}/${users.bender.id}-BenderToken1/messages` },
    message: { id: message.id, body: { html, plain: '"quotes" & ünïcode' }, path: `/rooms/${rooms.hq.id}/@${message.id}` },
  }
  assert.equal(json(), JSON.stringify(expected), 'the plain text read from the search row')
  await app.store.write((m) => m.db.prepare('DELETE FROM message_search_index WHERE rowid = ?').run(message.id))
  assert.equal(json(), JSON.stringify(expected), 'the plain text converted again when there is no search row')
})

test('a file without text is described by its file name', async (t) => {
  const { app } = await buildTestApp(t)
  const blob = { key: 'k'.repeat(28), filename: 'report.pdf', contentType: 'application/pdf', metadata: {}, byteSize: 3, checksum: 'x' }
  const message = await app.store.write((m) => postMessageWithAttachment(m, { roomId: rooms.bender_and_kevin.id, creatorId: users.kevin.id, clientMessageId: 'c2', body: '', plainText: 'report.pdf' }, blob))
  assert.equal(app.store.read((m) => messageBasis(m, message, '', new Map())).plain, 'report.pdf')
  await app.store.write((m) => m.db.prepare('DELETE FROM message_search_index WHERE rowid = ?').run(message.id))
  assert.equal(app.store.read((m) => messageBasis(m, message, '', new Map())).plain, 'report.pdf')
})

test('the bot’s own mentions go, and then whitespace at either end, Unicode spaces too', () => {
  assert.equal(withoutMention('@Bender Bot deploy @Bender Bot now', 'Bender Bot'), 'deploy  now')
  assert.equal(withoutMention('\u00a0\u3000 @Bender Bot hi @Marvin\n', 'Bender Bot'), 'hi @Marvin')
  assert.equal(withoutMention('@Bender Bot', 'Bender Bot'), '')
})

test('a stored body’s attachment sgids are found without parsing it, exactly as the parser finds them', () => {
  const samples = [
    'plain text with sgid="abc123" and <action-text-attachment sgid="typed"> typed as text',
    'sgid="abc" without any markup',
    `<p>${mentionAttachmentHtml('A1--s')} and ${mentionAttachmentHtml('A1--s')} again, ${mentionAttachmentHtml('B2--s', '<span class="x">"B" & co</span>')}</p>`,
    `<action-text-attachment caption="a sgid=" sgid="C3--s" content-type="application/vnd.campfire.mention"></action-text-attachment>`,
    `<ACTION-TEXT-ATTACHMENT SGID="D4--s" CONTENT-TYPE="application/vnd.campfire.mention"></ACTION-TEXT-ATTACHMENT>`,
    `<action-text-attachment sgid="E5--s" content-type="${OPENGRAPH_CONTENT_TYPE}" url="https://example.com"></action-text-attachment>`,
    `<div sgid="F6--s">a div may carry one too</div><action-text-attachment content-type="image/png" url="https://example.com/x.png"></action-text-attachment>`,
    `<blockquote><ul><li>${mentionAttachmentHtml('G7--s')}</li></ul></blockquote><pre>&lt;action-text-attachment sgid="H8"&gt;</pre>`,
  ]
  for (const sample of samples) {
    const stored = sanitizeBody(sample)
    assert.deepEqual(attachmentSgids(stored), mentionedSgids(stored), stored)
  }
  assert.deepEqual(attachmentSgids(sanitizeBody(samples[2]!)), ['A1--s', 'B2--s'])
})
