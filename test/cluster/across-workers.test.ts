import { test } from 'node:test'
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { gunzipSync } from 'node:zlib'
import { RailsSigning } from '../../server/lib/rails/signing.ts'
import { messagesStreamName } from '../cable/cable-helper.ts'
import { rooms } from '../fixtures.ts'
import { SECRET_KEY_BASE } from '../helper.ts'
import { openCable, signIn, startCluster } from './cluster-helper.ts'

const BENDER_MESSAGES = `/rooms/${rooms.pets.id}/5-BenderToken1/messages`
const PETS_MESSAGES = JSON.stringify({ channel: 'RoomMessagesChannel', signed_stream_name: new RailsSigning(SECRET_KEY_BASE).signStreamName(messagesStreamName('pets')) })

interface Answer {
  status: number
  worker: number | null
  body: string
}

// One request on a connection of its own, so the primary may hand it to either worker; the
// worker that answered is in Server-Timing.
function once(baseUrl: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(baseUrl + path, { method, agent: false, headers: { 'accept-encoding': 'gzip', ...headers } }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => {
        const raw = Buffer.concat(chunks)
        const text = response.headers['content-encoding'] === 'gzip' ? gunzipSync(raw).toString('utf8') : raw.toString('utf8')
        const worker = /worker;desc=(\d+)/.exec(String(response.headers['server-timing'] ?? ''))?.[1]
        resolve({ status: response.statusCode!, worker: worker === undefined ? null : Number(worker), body: text })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}

// Asks until every worker has answered `times` times (the primary deals connections out in turn).
async function fromEveryWorker(ask: () => Promise<Answer>, times = 1): Promise<Map<number, Answer[]>> {
  const answers = new Map<number, Answer[]>()
  for (let i = 0; i < 200 && !([1, 2].every((id) => (answers.get(id)?.length ?? 0) >= times)); i++) {
    const answer = await ask()
    if (answer.worker !== null) answers.set(answer.worker, [...(answers.get(answer.worker) ?? []), answer])
  }
  assert.deepEqual([...answers.keys()].sort(), [1, 2], 'both workers answered')
  return answers
}

test('after 1,000 navigations on one worker, posts answered by either worker reach the socket once each, in order', { timeout: 180_000 }, async (t) => {
  const { server } = await startCluster(t)
  const tab = await openCable(t, server.baseUrl, await signIn(server.baseUrl, 'kevin'))
  tab.subscribe(PETS_MESSAGES)
  await tab.confirmed(PETS_MESSAGES)
  for (let n = 0; n < 1000; n++) {
    tab.send({ command: 'unsubscribe', identifier: PETS_MESSAGES })
    tab.send({ command: 'subscribe', identifier: PETS_MESSAGES })
  }
  await tab.until(() => tab.confirmations(PETS_MESSAGES).length === 1001, 60_000)
  assert.equal(tab.rejections().length, 0, 'no subscribe was refused as a duplicate')

  const posts = 24
  const answeredBy = new Set<number>()
  for (let i = 0; i < posts; i++) {
    const answer = await once(server.baseUrl, 'POST', BENDER_MESSAGES, { 'content-type': 'application/x-www-form-urlencoded' }, `in order ${i}`)
    assert.equal(answer.status, 201)
    if (answer.worker !== null) answeredBy.add(answer.worker)
  }
  assert.deepEqual([...answeredBy].sort(), [1, 2], `posts were answered (by ${[...answeredBy]}) by both workers, so some crossed through Redis`)
  await tab.until(() => tab.messages(PETS_MESSAGES).length >= posts, 30_000)
  await new Promise((resolve) => setTimeout(resolve, 300))
  const texts = tab.messages(PETS_MESSAGES).map((message) => /in order (\d+)/.exec(String(message))?.[1])
  assert.deepEqual(texts, Array.from({ length: posts }, (_, i) => String(i)), `each post once, in the order it was answered: ${texts.join(' ')}`)
})

test('a room page cached on both workers shows a post the other worker answered', { timeout: 180_000 }, async (t) => {
  const { server } = await startCluster(t)
  const cookie = await signIn(server.baseUrl, 'kevin')
  const roomPage = () => once(server.baseUrl, 'GET', `/rooms/${rooms.pets.id}`, { cookie })
  // Each worker renders the page and then serves it from its cache.
  await fromEveryWorker(roomPage, 2)
  for (let i = 0; i < 6; i++) {
    const posted = await once(server.baseUrl, 'POST', BENDER_MESSAGES, { 'content-type': 'application/x-www-form-urlencoded' }, `fresh news ${i}`)
    assert.equal(posted.status, 201)
    const pages = await fromEveryWorker(roomPage)
    for (const [worker, answers] of pages) {
      for (const answer of answers) assert.match(answer.body, new RegExp(`fresh news ${i}`), `worker ${worker}'s page shows post ${i}, answered by worker ${posted.worker}`)
    }
  }
})
