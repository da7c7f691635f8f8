import { test } from 'node:test'
import assert from 'node:assert/strict'
import { gunzipSync } from 'node:zlib'
import { deflatePart } from '../../server/rendering/gzip.ts'
import { shellOf, shellSignature, slotMarker, splicedGzip } from '../../server/rendering/shell-splice.ts'
import { gunzipExactly } from '../support/harness-validator.ts'

const part = deflatePart(Buffer.from('<div class="messages">the cached part ✓</div>'.repeat(200)))

test('a shell with slots joins the part into one valid gzip stream, each value in its place', () => {
  const before = `<html><body data-a="${slotMarker('a')}">é<p data-b="${slotMarker('b')}"></p>`
  const shell = shellOf(before, '</body></html>', ['a', 'b'])
  for (const values of [['1893456000000', 'x'], ['', ''], ['ü'.repeat(40_000), '🔥']]) {
    const gzip = splicedGzip(shell, part, values)
    const expected = `<html><body data-a="${values[0]}">é<p data-b="${values[1]}"></p>` + '<div class="messages">the cached part ✓</div>'.repeat(200) + '</body></html>'
    assert.deepEqual(gunzipExactly(gzip), { body: Buffer.from(expected), failures: [] }, `values ${values.map((v) => v.length).join(', ')}`)
    assert.equal(gunzipSync(splicedGzip(shell, part, values)).toString('utf8'), expected, 'again, with the kept checksum')
  }
})

test('a shell whose slot is missing or repeated is refused', () => {
  assert.throws(() => shellOf('<p></p>', '', ['a']), /slot a must appear exactly once/)
  assert.throws(() => shellOf(`${slotMarker('a')}${slotMarker('a')}`, '', ['a']), /slot a must appear exactly once/)
})

test('the signature changes with the data, the person and the account, not with nothing', () => {
  const base = shellSignature('rooms/show', { room: { id: 1, name: 'HQ' } }, { id: 1, name: 'David' }, { name: '37signals' })
  assert.equal(shellSignature('rooms/show', { room: { id: 1, name: 'HQ' } }, { id: 1, name: 'David' }, { name: '37signals' }), base)
  assert.notEqual(shellSignature('rooms/show', { room: { id: 1, name: 'HQ2' } }, { id: 1, name: 'David' }, { name: '37signals' }), base)
  assert.notEqual(shellSignature('rooms/show', { room: { id: 1, name: 'HQ' } }, { id: 1, name: 'Dave' }, { name: '37signals' }), base)
  assert.notEqual(shellSignature('rooms/show', { room: { id: 1, name: 'HQ' } }, { id: 1, name: 'David' }, { name: 'Basecamp' }), base)
  assert.notEqual(shellSignature('searches/index', { room: { id: 1, name: 'HQ' } }, { id: 1, name: 'David' }, { name: '37signals' }), base)
})

test('a shell joined with one version of the part and then another gives each whole page, and holds on to neither part', () => {
  const shell = shellOf(`<main data-at="${slotMarker('at')}">`, '</main>', ['at'])
  const first = deflatePart(Buffer.from('<p>first version</p>'.repeat(50)))
  const second = deflatePart(Buffer.from('<p>second version, longer</p>'.repeat(50)))
  for (const [version, text] of [[first, 'first version'], [second, 'second version, longer'], [first, 'first version']] as const) {
    const expected = `<main data-at="7">${`<p>${text}</p>`.repeat(50)}</main>`
    assert.deepEqual(gunzipExactly(splicedGzip(shell, version, ['7'])), { body: Buffer.from(expected), failures: [] })
  }
  const kept: unknown[] = Object.values(shell.joined ?? {})
  assert.ok(!kept.includes(first) && !kept.includes(second), 'the shell keeps the part’s CRC and length, not the part (an evicted page’s bytes)')
})
