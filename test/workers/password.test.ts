import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import password from '../../server/workers/password.ts'

const rails = JSON.parse(readFileSync(new URL('../fixtures/rails-bcrypt.json', import.meta.url), 'utf8'))

test('a cost-12 digest made by Rails (bcrypt-ruby, $2a$) verifies', async () => {
  assert.match(rails.digest, /^\$2a\$12\$/)
  assert.equal(await password({ op: 'verify', password: rails.password, digest: rails.digest }), true)
  assert.equal(await password({ op: 'verify', password: 'wrong password', digest: rails.digest }), false)
})

test('new digests are bcrypt at cost 12 by default', async () => {
  const digest = (await password({ op: 'hash', password: 'correct horse' })) as string
  assert.match(digest, /^\$2[ab]\$12\$/)
  assert.equal(await password({ op: 'verify', password: 'correct horse', digest }), true)
})

test('a missing or malformed digest never verifies', async () => {
  for (const digest of [null, '', 'plaintext', '$2a$12$short']) {
    assert.equal(await password({ op: 'verify', password: 'anything', digest }), false)
  }
})
