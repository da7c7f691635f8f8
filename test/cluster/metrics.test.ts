import { test } from 'node:test'
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { rooms } from '../fixtures.ts'
import { freePort } from '../support/ports.ts'
import { parseScrape, valueOf, type Family } from '../support/prometheus-text.ts'
import { openCable, signIn, startCluster } from './cluster-helper.ts'

const TOKEN = 'cluster-metrics-token-0123456789'
const BENDER_MESSAGES = `/rooms/${rooms.pets.id}/5-BenderToken1/messages`

// One request on a connection of its own, so the primary may hand it to either worker.
function once(baseUrl: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; worker: number | null; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(baseUrl + path, { method, agent: false, headers }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => {
        const worker = /worker;desc=(\d+)/.exec(String(response.headers['server-timing'] ?? ''))?.[1]
        resolve({ status: response.statusCode!, worker: worker === undefined ? null : Number(worker), body: text })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<Map<string, Family>> {
  const response = await fetch(url, { headers })
  assert.equal(response.status, 200)
  return parseScrape(await response.text())
}

test('with WEB_CONCURRENCY=2 one scrape holds both workers and the primary, through METRICS_BIND or a worker’s /metrics', { timeout: 180_000 }, async (t) => {
  const port = await freePort()
  const { server } = await startCluster(t, { METRICS_BIND: `127.0.0.1:${port}`, METRICS_TOKEN: TOKEN })
  assert.match(server.output(), new RegExp(`Metrics listening at http://127\\.0\\.0\\.1:${port}/metrics`))
  const bound = `http://127.0.0.1:${port}/metrics`
  const before = await scrape(bound)

  // Requests answered by both workers, a post, and a socket open on one of them.
  const answeredBy = new Set<number>()
  let ups = 0
  while (ups < 40 && (ups < 10 || answeredBy.size < 2)) {
    const answer = await once(server.baseUrl, 'GET', '/up')
    assert.equal(answer.status, 200)
    if (answer.worker !== null) answeredBy.add(answer.worker)
    ups++
  }
  assert.deepEqual([...answeredBy].sort(), [1, 2], 'both workers answered')
  const posted = await once(server.baseUrl, 'POST', BENDER_MESSAGES, { 'content-type': 'text/plain' }, 'Counted across the workers')
  assert.equal(posted.status, 201, posted.body)
  await openCable(t, server.baseUrl, await signIn(server.baseUrl, 'kevin'))

  const after = await scrape(bound)
  const moved = (series: string, labels: Record<string, string> = {}) => valueOf(after, series, labels) - valueOf(before, series, labels)
  assert.equal(valueOf(after, 'campfire_cluster_workers'), 2)
  assert.equal(valueOf(after, 'campfire_cluster_workers_scraped'), 2, 'both workers answered the primary')
  assert.equal(moved('campfire_http_request_duration_seconds_count', { route: '/up', status: '200' }), ups, 'every /up, whichever worker answered it')
  assert.equal(moved('campfire_http_request_duration_seconds_count', { method: 'POST', status: '201' }), 1)
  assert.ok(moved('campfire_writer_writes_total') >= 1, 'the post went through a writer')
  assert.equal(valueOf(after, 'campfire_cable_connections'), 1)
  // The checkpointer's first run comes a second after boot, and starts its thread then: on a
  // loaded machine it may not have finished yet, so the count is read again until it has.
  let checkpoints = valueOf(after, 'campfire_wal_checkpoints_total')
  for (const deadline = Date.now() + 20_000; checkpoints < 1 && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 250))) {
    checkpoints = valueOf(await scrape(bound), 'campfire_wal_checkpoints_total')
  }
  assert.ok(checkpoints >= 1, 'the primary’s checkpointer is counted')
  // Process metrics are the three processes' together: more memory than any one of them holds.
  assert.ok(valueOf(after, 'process_resident_memory_bytes') > 100 * 1024 * 1024)

  // A worker asked on the app's port answers for the whole server too.
  const throughWorker = await scrape(`${server.baseUrl}/metrics`, { authorization: `Bearer ${TOKEN}` })
  assert.equal(valueOf(throughWorker, 'campfire_cluster_workers_scraped'), 2)
  assert.ok(valueOf(throughWorker, 'campfire_http_request_duration_seconds_count', { route: '/up', status: '200' }) >= ups)
  const refused = await once(server.baseUrl, 'GET', '/metrics')
  assert.equal(refused.status, 401)
})
