import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../../helper.ts'
import { users } from '../../fixtures.ts'
import { mentionAttachmentHtml } from '../../../server/models/rich-text/index.ts'
import { composeBody } from '../../../server/routes/messages/body.ts'

// Counts the read transactions composeBody opens.
function countingReads(app: Awaited<ReturnType<typeof buildTestApp>>['app']): { reads: () => number } {
  let reads = 0
  const read = app.store.read.bind(app.store)
  app.store.read = ((fn: Parameters<typeof read>[0]) => {
    reads++
    return read(fn)
  }) as typeof app.store.read
  return { reads: () => reads }
}

test('a body’s mentions become “@Name” in its plain text, the people read together once, however often each is mentioned', async (t) => {
  const { app } = await buildTestApp(t)
  const jason = mentionAttachmentHtml(app.signing.signedGlobalId('User', users.jason.id))
  const kevin = mentionAttachmentHtml(app.signing.signedGlobalId('User', users.kevin.id))
  const { reads } = countingReads(app)
  const composed = composeBody(app, `<div>${jason} and ${kevin}, and ${jason} again</div>`)
  assert.equal(composed.plainText, `@${users.jason.name} and @${users.kevin.name}, and @${users.jason.name} again`)
  assert.equal(reads(), 1)
})

test('a body without mentions reads nothing, and a mention whose signature does not verify stays unnamed', async (t) => {
  const { app } = await buildTestApp(t)
  const { reads } = countingReads(app)
  assert.equal(composeBody(app, 'plain words').plainText, 'plain words')
  assert.equal(composeBody(app, '<div><strong>bold</strong> words</div>').plainText, 'bold words')
  assert.equal(reads(), 0)
  const forged = mentionAttachmentHtml(`${Buffer.from('gid://campfire/User/2').toString('base64')}--0000`)
  assert.doesNotMatch(composeBody(app, `<div>hi ${forged}</div>`).plainText, /@/)
})
