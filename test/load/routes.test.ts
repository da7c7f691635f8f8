// bench:routes checks every response: the first of a kind in full, then bytes equal to one that
// passed under the same contract by that verdict, and it counts which was which. A changed
// answer is checked in full again (and a wrong one rejected); a new contract starts with nothing
// validated. --replay's recorded responses, answered by the bare replay server, read back the same.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import type { Contract } from '../support/harness-validator.ts'
import { hit, METRICS_TOKEN, newSample, scrapeMetrics, type Target } from './routes.ts'
import { SECRET_KEY_BASE, tempStorage } from '../helper.ts'
import { startServer, stopServer } from '../support/server-process.ts'
import { HttpClient, isFailure } from './support/http.ts'
import { RawHttpClient } from './support/raw-http.ts'
import { REPLAY_LAYERS, startReplay } from './support/replay.ts'

const message = (id: number) =>
  `<div id="message_${id}" class="message" data-message-id="${id}"><turbo-frame id="edit_message_${id}"><div id="presentation_message_${id}">message ${id}</div></turbo-frame></div>`
const roomPage = (ids: number[], extra = '') => `<!DOCTYPE html>\n<html><body>${ids.map(message).join('')}${extra}</body></html>\n`
const contract = (): Contract => ({ kind: 'room_show', contentType: 'text/html', required: [], messageIds: [100n, 101n], messageContent: [['message', '100'], ['message', '101']], exactBody: null })
const target = (base: string): Target => ({ baseUrl: base, dbPath: '', labels: { 'rooms.watercooler': 10, 'rooms.hq': 11, 'messages.busy_060': 101 }, cookie: 'session_token=x', server: null, storage: null })

async function pageServer(t: TestContext, page: () => string): Promise<string> {
  const server = http.createServer((req, res) => {
    const body = gzipSync(page())
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip', 'content-length': body.length, 'server-timing': `page;desc="hit", total;dur=${Math.random().toFixed(2)}` })
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

test('the same page is parsed once and then matched; a changed one is parsed again, and a wrong one rejected', async (t) => {
  let page = roomPage([100, 101])
  const base = await pageServer(t, () => page)
  const client = new RawHttpClient(base, 2)
  t.after(() => client.close())
  const room = contract()
  const sample = newSample()
  for (let i = 0; i < 5; i++) await hit(client, 'room_show', room, target(base), true, sample, [])
  assert.deepEqual({ ok: sample.ok, parsed: sample.parsed, matched: sample.matched }, { ok: 5, parsed: 1, matched: 4 })
  page = roomPage([100, 101], '<p>a new footer</p>')
  for (let i = 0; i < 3; i++) await hit(client, 'room_show', room, target(base), true, sample, [])
  assert.deepEqual({ ok: sample.ok, parsed: sample.parsed, matched: sample.matched }, { ok: 8, parsed: 2, matched: 6 })
  page = roomPage([100, 300])
  await hit(client, 'room_show', room, target(base), true, sample, [])
  assert.deepEqual({ ok: sample.ok, parsed: sample.parsed, invalid: sample.invalid.counts }, { ok: 8, parsed: 3, invalid: { 'incorrect message window': 1 } })
  const timing = sample.timing.summary().page
  assert.equal(typeof timing === 'object' ? timing.hits : timing, 9, 'every answer counted in Server-Timing, parsed or not')
})

test('a new contract (a changed expectation) checks the same bytes in full again', async (t) => {
  const base = await pageServer(t, () => roomPage([100, 101]))
  const client = new RawHttpClient(base, 2)
  t.after(() => client.close())
  const sample = newSample()
  await hit(client, 'room_show', contract(), target(base), true, sample, [])
  await hit(client, 'room_show', contract(), target(base), true, sample, [])
  assert.deepEqual({ ok: sample.ok, parsed: sample.parsed, matched: sample.matched }, { ok: 2, parsed: 2, matched: 0 })
  const expectingMore: Contract = { ...contract(), messageIds: [100n, 101n, 102n], messageContent: [['message', '100'], ['message', '101'], ['message', '102']] }
  await hit(client, 'room_show', expectingMore, target(base), true, sample, [])
  assert.deepEqual(sample.invalid.counts, { 'incorrect message window': 1 })
})

for (const layer of REPLAY_LAYERS) {
  test(`a recorded response, answered by the replay server on ${layer}, reads back as our server's did`, async (t) => {
    const base = await pageServer(t, () => roomPage([100, 101]))
    const node = new HttpClient(base, 1)
    t.after(() => node.close())
    const original = await node.request({ path: '/rooms/10', headers: { 'accept-encoding': 'gzip' }, decode: false })
    assert.ok(!isFailure(original))
    const replay = await startReplay([{ path: '/rooms/10', answer: original }], layer)
    t.after(() => replay.stop())
    const client = new RawHttpClient(replay.baseUrl, 2)
    t.after(() => client.close())
    const again = await client.request({ path: '/rooms/10', headers: {}, decode: false })
    assert.ok(!isFailure(again))
    assert.equal(again.status, 200)
    assert.ok(again.wire.equals(original.wire))
    for (const name of ['content-type', 'content-encoding', 'content-length', 'server-timing']) assert.equal(again.headers[name], original.headers[name], name)
    const sample = newSample()
    for (let i = 0; i < 3; i++) await hit(client, 'room_show', contract(), target(replay.baseUrl), true, sample, [])
    assert.equal(sample.ok, 3)
    const missing = await client.request({ path: '/elsewhere', headers: {} })
    assert.ok(!isFailure(missing) && missing.status === 404)
  })
}

test('with --metrics the server it starts serves its metrics to the bench, which counts the requests they hold', async (t) => {
  const server = await startServer({ CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE, DISABLE_SSL: 'true', METRICS_TOKEN })
  t.after(() => stopServer(server))
  for (let i = 0; i < 3; i++) assert.equal((await fetch(`${server.baseUrl}/up`)).status, 200)
  const scraped = await scrapeMetrics(server.baseUrl)
  assert.equal(scraped.requests, 3)
  assert.ok(scraped.bytes > 1000)
})
