import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createECDH } from 'node:crypto'
import { join } from 'node:path'
import { loadConfig } from '../../server/config.ts'
import { SECRET_KEY_BASE, tempStorage } from '../helper.ts'
import { assertHelpWritesNothing, runAdmin } from './support/admin-script.ts'

// The two lines as an env file gives them to the server.
function envLines(output: string): Record<string, string> {
  assert.match(output, /^VAPID_PUBLIC_KEY=[A-Za-z0-9_-]+\nVAPID_PRIVATE_KEY=[A-Za-z0-9_-]+\n$/)
  return Object.fromEntries(output.trim().split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]))
}

test('create-vapid-key prints a new P-256 pair in env format that the server’s configuration takes', async (t) => {
  const [first, second] = await Promise.all([runAdmin('create-vapid-key', [], {}), runAdmin('create-vapid-key', [], {})])
  for (const result of [first!, second!]) {
    assert.equal(result.code, 0, result.stderr)
    assert.equal(result.stderr, '')
    const keys = envLines(result.stdout)
    const config = loadConfig({ CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE, ...keys })
    assert.equal(config.vapidProblem, null)
    assert.deepEqual(config.vapid, { publicKey: keys.VAPID_PUBLIC_KEY, privateKey: keys.VAPID_PRIVATE_KEY })
    // An uncompressed point on P-256 and the private scalar it comes from.
    const ecdh = createECDH('prime256v1')
    ecdh.setPrivateKey(Buffer.from(keys.VAPID_PRIVATE_KEY!, 'base64url'))
    assert.equal(ecdh.getPublicKey('base64url'), keys.VAPID_PUBLIC_KEY)
  }
  assert.notEqual(first!.stdout, second!.stdout, 'a new pair each run')
})

test('create-vapid-key --help and -h print the usage and write nothing', async (t) => {
  await assertHelpWritesNothing('create-vapid-key', join(tempStorage(t), 'storage'))
})
