import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type RequestListener } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { readLag } from '../../server/litestream/lag.ts'
import { tempStorage } from '../helper.ts'

// A loopback HTTP server standing where Litestream's metrics would be.
async function standIn(t: TestContext, answer: RequestListener): Promise<string> {
  const server = createServer(answer)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => {
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`
}

const read = (metricsUrl: string | null, databasePath = '/srv/db/production.sqlite3') => readLag({ metricsUrl, shippedAt: Date.now() }, databasePath)

test('a Litestream that is not running, answers garbage, an error, or for another database is refused in one line', async (t) => {
  await assert.rejects(read(null), /Litestream is not running/)
  const garbage = await standIn(t, (_request, response) => response.end('<html>502 Bad Gateway</html>\n'))
  await assert.rejects(read(garbage), /line 1 is not a Prometheus sample/)
  const failing = await standIn(t, (_request, response) => ((response.statusCode = 500), response.end('no')))
  await assert.rejects(read(failing), /Litestream answered 500/)
  const other = await standIn(t, (_request, response) => response.end('litestream_db_size{db="/elsewhere.sqlite3"} 4096\n'))
  await assert.rejects(read(other), /Litestream does not replicate \/srv\/db\/production\.sqlite3/)
  const huge = await standIn(t, (_request, response) => response.end(`# ${'x'.repeat(2 * 1024 * 1024)}\n`))
  await assert.rejects(read(huge), /too much/)
})

test('a Litestream that does not answer is given up on after 500 ms', async (t) => {
  const silent = await standIn(t, () => {})
  const started = Date.now()
  await assert.rejects(read(silent))
  const waited = Date.now() - started
  assert.ok(waited >= 450 && waited < 1_500, `gave up after ${waited} ms`)
})

test('before Litestream has written to the replica the lag is unknown, not 0', async (t) => {
  const databasePath = join(tempStorage(t), 'production.sqlite3')
  const fresh = await standIn(t, (_request, response) => response.end(`litestream_db_size{db="${databasePath}"} 4096\nlitestream_shadow_wal_size{db="${databasePath}"} 0\n`))
  assert.deepEqual(await read(fresh, databasePath), { bytes: null, seconds: null })
})
