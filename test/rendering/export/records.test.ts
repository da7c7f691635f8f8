import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { ExportMessage, ExportRoom } from '../../../server/models/export/rows.ts'
import { attachmentPath, messageRecord, safeFileName } from '../../../server/rendering/export/records.ts'
import { roomHtml } from '../../../server/rendering/export/room-html.ts'
import { roomJson } from '../../../server/rendering/export/room-json.ts'

const room: ExportRoom = { id: 7, name: 'HQ', type: 'Rooms::Open', creator_id: 1, created_at: '2026-03-01 12:00:00.000000' }

function message(overrides: Partial<ExportMessage> = {}): ExportMessage {
  return {
    id: 11, created_at: '2026-03-02 09:30:15.123456', updated_at: '2026-03-02 09:30:15.123456', creator_id: 4, author: 'Kevin McConnell',
    html: '<div>Hi <img src="https://tracker.example/p.gif" onerror="alert(1)"></div>', text: 'Hi <b>there</b>',
    boosts: '[{"content":"🎉","booster_id":1,"booster":"David","created_at":"2026-03-02 09:31:00.000000"}]',
    attachments: '[{"key":"abcd1234","filename":"../../etc/passwd","content_type":"image/png","byte_size":12}]',
    ...overrides,
  }
}

test('a stored filename becomes one harmless path segment in the zip', () => {
  assert.equal(safeFileName('../../etc/passwd'), '.._.._etc_passwd')
  assert.equal(safeFileName('..'), 'file')
  assert.equal(safeFileName('a\u0000b:c?.png'), 'a_b_c_.png')
  assert.equal(attachmentPath({ key: 'abcd1234', filename: 'cat.png' }), 'attachments/abcd1234/cat.png')
})

test('a message record carries its author, ISO times, both texts, boosts and attachment paths', () => {
  const record = messageRecord(message())
  assert.deepEqual(record.author, { id: 4, name: 'Kevin McConnell' })
  assert.equal(record.created_at, '2026-03-02T09:30:15.123Z')
  assert.match(record.html, /<div>Hi/)
  assert.deepEqual(record.boosts, [{ content: '🎉', by: { id: 1, name: 'David' }, created_at: '2026-03-02T09:31:00.000Z' }])
  assert.deepEqual(record.attachments, [{ path: 'attachments/abcd1234/.._.._etc_passwd', filename: '../../etc/passwd', content_type: 'image/png', byte_size: 12 }])
})

test('a room’s JSON is valid with no messages and with many, written piece by piece', () => {
  assert.deepEqual(JSON.parse([...roomJson(room, 'HQ', [])].join('')), { room: { id: 7, name: 'HQ', title: 'HQ', created_at: '2026-03-01T12:00:00.000Z' }, messages: [] })
  const pieces = [...roomJson(room, 'HQ', [message({ id: 1 }), message({ id: 2 }), message({ id: 3 })])]
  assert.equal(pieces.length, 5, 'a head, one piece per message, a tail')
  assert.deepEqual((JSON.parse(pieces.join('')) as { messages: { id: number }[] }).messages.map((m) => m.id), [1, 2, 3])
})

test('a room’s page shows plain text only, escaped, and links its files inside the zip', () => {
  const page = [...roomHtml('HQ <script>', '2026-03-03T00:00:00.000Z', [message()])].join('')
  assert.match(page, /<title>HQ &lt;script&gt;<\/title>/)
  assert.match(page, /<div class="body">Hi &lt;b&gt;there&lt;\/b&gt;<\/div>/)
  assert.doesNotMatch(page, /tracker\.example|onerror|<script/)
  assert.match(page, /<a href="\.\.\/attachments\/abcd1234\/\.\._\.\._etc_passwd"><img src="\.\.\/attachments\/abcd1234\/\.\._\.\._etc_passwd" alt="\.\.\/\.\.\/etc\/passwd"><\/a>/)
  assert.match(page, /<li>🎉 <span>David<\/span><\/li>/)
})
