import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { RailsSigning } from '../../../server/lib/rails/signing.ts'
import { STATUSES, ROLES, type UserRow } from '../../../server/models/user.ts'
import { findByTransferId, TRANSFER_LINK_EXPIRY_MS, transferId } from '../../../server/models/user/transferable.ts'

// Golden vectors produced by real Ruby (test/fixtures/rails-signing/generate.rb).
const golden = JSON.parse(readFileSync(new URL('../../fixtures/rails-signing/vectors.json', import.meta.url), 'utf8'))
type Vector = { id: string; kind: string; input: { id: number; purpose?: string; now?: string; expires_in_seconds?: number }; signed: string; verify: { purpose: string; at: string; secret_key_base: string }; expected: { valid: boolean; value?: number } }
const transferVectors: Vector[] = golden.vectors.filter((v: Vector) => v.kind === 'signed_id' && v.verify.purpose === 'transfer')
const signing = new RailsSigning(golden.secret_key_base)

function person(id: number, changes: Partial<UserRow> = {}): UserRow {
  return { id, name: `Person ${id}`, email_address: `p${id}@example.com`, password_digest: null, role: ROLES.member, status: STATUSES.active, bio: null, updated_at: '2026-03-01 12:00:00.000000', ...changes }
}

function directory(...people: UserRow[]) {
  return { users: { find: (id: number) => people.find((p) => p.id === id) } }
}

test('a transfer id is Rails’ signed_id(purpose: :transfer, expires_in: 4.hours), byte for byte', () => {
  assert.equal(TRANSFER_LINK_EXPIRY_MS, 4 * 60 * 60 * 1000)
  const minted = transferVectors.filter((v) => v.input.purpose === 'transfer' && v.input.expires_in_seconds === 14400 && v.input.now !== undefined)
  assert.ok(minted.length >= 2, 'vectors for more than one id')
  for (const vector of minted) {
    assert.equal(transferId(signing, { id: vector.input.id }, Date.parse(vector.input.now!)), vector.signed, vector.id)
  }
})

test('a transfer id from Rails finds its person until the moment it expires, in the current and the Rails 7.0 format', () => {
  assert.ok(transferVectors.some((v) => v.id.endsWith('/expired')) && transferVectors.some((v) => v.id.endsWith('/just-before-expiry')))
  for (const vector of transferVectors) {
    const found = findByTransferId(directory(person(1), person(980190962)), signing, vector.signed, Date.parse(vector.verify.at))
    if (vector.expected.valid) assert.equal(found?.id, vector.expected.value, vector.id)
    else assert.equal(found, undefined, vector.id)
  }
})

test('a transfer id finds nobody when used as an avatar token, nor an avatar token as a transfer id', () => {
  const now = Date.now()
  const token = transferId(signing, { id: 1 }, now)
  assert.equal(signing.verifySignedId('User', token, 'avatar', now), undefined)
  assert.equal(findByTransferId(directory(person(1)), signing, signing.signedId('User', 1, 'avatar'), now), undefined)
})

test('a transfer id finds only an active person who is not a bot, and nobody for a missing row', () => {
  const now = Date.now()
  const people = directory(person(1), person(2, { status: STATUSES.deactivated }), person(3, { status: STATUSES.banned }), person(4, { role: ROLES.bot }), person(5, { role: ROLES.administrator }))
  const found = (id: number) => findByTransferId(people, signing, transferId(signing, { id }, now), now)?.id
  assert.equal(found(1), 1)
  assert.equal(found(5), 5)
  assert.equal(found(2), undefined, 'deactivated')
  assert.equal(found(3), undefined, 'banned')
  assert.equal(found(4), undefined, 'a bot')
  assert.equal(found(6), undefined, 'no such person')
})

test('a transfer id signed with another secret, or altered, finds nobody', () => {
  const now = Date.now()
  const people = directory(person(1), person(2))
  const foreign = transferId(new RailsSigning(golden.wrong_secret_key_base), { id: 1 }, now)
  assert.equal(findByTransferId(people, signing, foreign, now), undefined)
  const token = transferId(signing, { id: 1 }, now)
  const [payload, digest] = token.split('--') as [string, string]
  const otherPayload = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('"data":1', '"data":2')).toString('base64url')
  for (const altered of [`${otherPayload}--${digest}`, `${payload}--${digest.slice(0, -1)}${digest.endsWith('0') ? '1' : '0'}`, payload, `${token}x`, '']) {
    assert.equal(findByTransferId(people, signing, altered, now), undefined, altered)
  }
})
