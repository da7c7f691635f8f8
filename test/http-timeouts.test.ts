import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { buildApp } from '../server/app.ts'
import { tempStorage, testConfig } from './helper.ts'
import { compiledWorkers } from './support/compiled-server.ts'

// A real server on a free port with short limits: headers 1 s, request 2 s, idle keep-alive 1 s.
async function listening(t: TestContext): Promise<number> {
  const config = testConfig(tempStorage(t), { HTTP_HEADERS_TIMEOUT: '1', HTTP_REQUEST_TIMEOUT: '2', HTTP_KEEP_ALIVE_TIMEOUT: '1' })
  const app = await buildApp({ config, logger: false, passwordCost: 4, compiledWorkers: await compiledWorkers() })
  t.after(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  return (app.server.address() as { port: number }).port
}

// Everything the server sends until it closes the connection, and how long that took.
function untilClosed(socket: Socket): Promise<{ text: string; ms: number }> {
  const started = Date.now()
  let text = ''
  socket.on('data', (chunk) => (text += chunk.toString('latin1')))
  return new Promise((resolve) => socket.once('close', () => resolve({ text, ms: Date.now() - started })))
}

async function opened(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1')
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  return socket
}

test('a client sending its headers a byte at a time is answered 408 once the headers timeout passes', { timeout: 60_000 }, async (t) => {
  const socket = await opened(await listening(t))
  const closed = untilClosed(socket)
  socket.write('GET /up HTTP/1.1\r\nHost: localhost\r\n')
  const trickle = setInterval(() => socket.writable && socket.write('X'), 200)
  t.after(() => clearInterval(trickle))
  const { text, ms } = await closed
  clearInterval(trickle)
  assert.match(text, /^HTTP\/1\.1 408 /)
  // 1 s, checked every second; generous for a loaded machine, far below the 60 s it was.
  assert.ok(ms < 10_000, `closed after ${ms} ms`)
})

test('a request whose body trickles in is answered 408 once the request timeout passes', { timeout: 60_000 }, async (t) => {
  const socket = await opened(await listening(t))
  const closed = untilClosed(socket)
  socket.write('POST /session HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n')
  const trickle = setInterval(() => socket.writable && socket.write('a'), 200)
  t.after(() => clearInterval(trickle))
  const { text, ms } = await closed
  clearInterval(trickle)
  assert.match(text, /^HTTP\/1\.1 408 /)
  assert.ok(ms < 12_000, `closed after ${ms} ms`)
})

test('a request whose body never arrives is answered 408 once the request timeout passes, not dropped', { timeout: 60_000 }, async (t) => {
  const socket = await opened(await listening(t))
  const closed = untilClosed(socket)
  socket.write('POST /session HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n')
  const { text, ms } = await closed
  assert.match(text, /^HTTP\/1\.1 408 /)
  assert.ok(ms < 12_000, `closed after ${ms} ms`)
})

test('an idle keep-alive connection is closed after the keep-alive timeout', { timeout: 60_000 }, async (t) => {
  const socket = await opened(await listening(t))
  const closed = untilClosed(socket)
  socket.write('GET /up HTTP/1.1\r\nHost: localhost\r\n\r\n')
  const { text, ms } = await closed
  assert.match(text, /^HTTP\/1\.1 200 /)
  assert.doesNotMatch(text, /connection: close/i)
  assert.ok(ms >= 900 && ms < 10_000, `closed after ${ms} ms`)
})
