import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { IdleCrowd, Slowloris } from './support/slow-crowd.ts'

// bench:slow-clients' crowd against a plain Node server with a 1 s headers timeout and a 30 s
// keep-alive: the idle connections are answered once and stay held, and the slowloris clients
// are answered 408 by the timeout, replaced, and counted.
async function server(t: TestContext, options: http.ServerOptions = {}): Promise<{ host: string; port: number; requests: string[] }> {
  const requests: string[] = []
  const listening = http.createServer({ headersTimeout: 1000, requestTimeout: 2000, connectionsCheckingInterval: 100, keepAliveTimeout: 30_000, ...options }, (request, response) => {
    requests.push(request.url ?? '')
    response.end('ok')
  })
  listening.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => { listening.closeAllConnections(); listening.close(() => resolve()) }))
  return { host: '127.0.0.1', port: (listening.address() as AddressInfo).port, requests }
}

test('the idle crowd opens every connection with one answered request and keeps them held', async (t) => {
  const { host, port, requests } = await server(t)
  const idle = new IdleCrowd(host, port)
  t.after(() => idle.close())
  await idle.open(300, 50)
  assert.equal(idle.opened, 300)
  assert.equal(idle.failed, 0)
  assert.equal(requests.length, 300)
  await new Promise((resolve) => setTimeout(resolve, 500))
  assert.equal(idle.held, 300)
  assert.equal(idle.closedByServer, 0)
})

test('slowloris clients are answered 408 at the headers timeout, replaced, and never reach a handler', async (t) => {
  const { host, port, requests } = await server(t)
  const slowloris = new Slowloris(host, port, 20)
  t.after(() => slowloris.stop())
  slowloris.start()
  await new Promise((resolve) => setTimeout(resolve, 3500))
  assert.equal(slowloris.open, 20, 'each closed one was replaced')
  const report = slowloris.report(1000)
  slowloris.stop()
  assert.ok(report.closed >= 20, `${report.closed} closed`)
  assert.equal(report.answered_408, report.closed)
  assert.equal(report.answered_otherwise, 0)
  assert.equal(report.closed_in_time, report.closed)
  assert.ok(report.held.min_ms! >= 900, `held at least the timeout: ${report.held.min_ms} ms`)
  assert.deepEqual(requests, [])
})

test('a server that answers a slow client otherwise is counted as such', async (t) => {
  // A 16-byte header limit: the first header overflows it, and Node answers 431.
  const { host, port } = await server(t, { maxHeaderSize: 16 })
  const slowloris = new Slowloris(host, port, 5)
  t.after(() => slowloris.stop())
  slowloris.start()
  await new Promise((resolve) => setTimeout(resolve, 500))
  const report = slowloris.report(1000)
  slowloris.stop()
  assert.ok(report.answered_otherwise > 0)
  assert.equal(report.answered_408, 0)
  assert.match(report.otherwise_examples[0]!, /^HTTP\/1\.1 431/)
})
