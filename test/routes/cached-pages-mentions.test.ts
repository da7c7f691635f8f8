import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildTestApp, inject, signIn } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { post } from './messages/support.ts'
import { foreignWriter } from '../support/foreign-writer.ts'

function pageCache(response: LightMyRequestResponse): string {
  return /(?:^|,\s*)page;desc="([^"]+)"/.exec(String(response.headers['server-timing'] ?? ''))?.[1] ?? ''
}

function entryIds(html: string): number[] {
  return [...html.matchAll(/<div id="inbox_entry_(\d+)"/g)].map((match) => Number(match[1]))
}

function inbox(app: FastifyInstance, cookie: string): Promise<LightMyRequestResponse> {
  return inject(app, cookie, { method: 'GET', url: '/users/me/mentions' })
}

function mentionOf(app: FastifyInstance, userId: number): string {
  return `<action-text-attachment sgid="${app.signing.signedGlobalId('User', userId)}" content-type="application/vnd.campfire.mention"></action-text-attachment>`
}

// Jason mentions Kevin through the real route; the id of the new message.
async function mention(app: FastifyInstance, jason: string, text: string): Promise<number> {
  const response = await post(app, jason, rooms.hq.id, `<div>${text} ${mentionOf(app, users.kevin.id)}</div>`)
  assert.equal(response.statusCode, 200)
  await app.mentions.settle()
  return Number(/data-message-id="(\d+)"/.exec(response.body)![1])
}

async function setup(t: TestContext) {
  const { app } = await buildTestApp(t)
  const jason = await signIn(app, 'jason')
  const kevin = await signIn(app, 'kevin')
  const first = await mention(app, jason, 'First')
  const page = await inbox(app, kevin)
  assert.equal(pageCache(page), 'miss')
  assert.equal(pageCache(await inbox(app, kevin)), 'hit')
  return { app, jason, kevin, first }
}

test("an inbox stays cached through other people's writes that are not for the person", async (t) => {
  const { app, jason, kevin } = await setup(t)
  await post(app, jason, rooms.hq.id, '<div>Nobody is mentioned</div>')
  await post(app, jason, rooms.designers.id, `<div>For JZ ${mentionOf(app, users.jz.id)}</div>`)
  await app.mentions.settle()
  assert.equal(pageCache(await inbox(app, kevin)), 'hit')
})

test("another person's mention is on the person's next request", async (t) => {
  const { app, jason, kevin, first } = await setup(t)
  const second = await mention(app, jason, 'Second')
  const response = await inbox(app, kevin)
  assert.equal(pageCache(response), 'miss')
  assert.deepEqual(entryIds(response.body), [second, first])
})

test('an outside SQL edit of a body, of a read mark or of a mention shows on the next request', async (t) => {
  const { app, kevin, first } = await setup(t)
  const db = foreignWriter(t, app)
  db.prepare("UPDATE action_text_rich_texts SET body = ? WHERE record_type = 'Message' AND record_id = ?").run(`<div>Edited elsewhere ${mentionOf(app, users.kevin.id)}</div>`, first)
  let response = await inbox(app, kevin)
  assert.equal(pageCache(response), 'miss')
  assert.match(response.body, /Edited elsewhere/)
  db.prepare('UPDATE memberships SET unread_at = NULL WHERE user_id = ?').run(users.kevin.id)
  response = await inbox(app, kevin)
  assert.equal(pageCache(response), 'miss')
  assert.ok(response.body.includes(`<div id="inbox_entry_${first}" class="inbox__entry inbox__entry--read"`), 'now dimmed')
  db.prepare("UPDATE action_text_rich_texts SET body = '<div>Nobody now</div>' WHERE record_type = 'Message' AND record_id = ?").run(first)
  response = await inbox(app, kevin)
  assert.equal(pageCache(response), 'miss')
  assert.deepEqual(entryIds(response.body), [])
})
