import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { loadConfig } from '../../server/config.ts'
import { tempStorage } from '../helper.ts'
import { assertHelpWritesNothing, runAdmin } from './support/admin-script.ts'

test('generate-secrets prints a SECRET_KEY_BASE of 128 hex characters, a different one each run, that the server takes', async (t) => {
  const runs = await Promise.all([runAdmin('generate-secrets', [], {}), runAdmin('generate-secrets', [], {})])
  const secrets = runs.map((result) => {
    assert.equal(result.code, 0, result.stderr)
    assert.equal(result.stderr, '')
    const match = /^SECRET_KEY_BASE=([0-9a-f]{128})\n$/.exec(result.stdout)
    assert.ok(match, result.stdout)
    return match[1]!
  })
  assert.notEqual(secrets[0], secrets[1])
  const storage = tempStorage(t)
  const config = loadConfig({ CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE: secrets[0] })
  assert.equal(config.secretKeyBase, secrets[0])
  assert.equal(config.secretKeyBaseSource, 'env')
})

test('generate-secrets --help and -h print the usage and write nothing', async (t) => {
  await assertHelpWritesNothing('generate-secrets', join(tempStorage(t), 'storage'))
})
