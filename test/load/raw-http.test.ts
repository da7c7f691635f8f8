// The generator's own HTTP client (support/raw-http.ts) reads what Node's does: the same status,
// headers, bytes off the wire and decoded body, for a plain, a gzip, a chunked, an empty and a
// posted answer; it retries a request on a kept-alive connection the server closed, queues
// requests beyond its connections, and fails a malformed answer or one that never comes, naming why.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { HttpClient, isFailure, type Answer, type Failure } from './support/http.ts'
import { dechunk, parseHead, RawHttpClient } from './support/raw-http.ts'

async function listen(t: TestContext, server: http.Server | net.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const PAGE = '<!DOCTYPE html><html><body>' + 'Caf\u00e9 crème '.repeat(4000) + '</body></html>'

function appServer(): http.Server {
  return http.createServer((req, res) => {
    if (req.url === '/plain') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': ['a=1; Path=/', 'b=2; Path=/'], 'server-timing': 'page;desc="hit", total;dur=0.2' })
      return res.end(PAGE)
    }
    if (req.url === '/gzip') {
      const body = gzipSync(PAGE)
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip', 'content-length': body.length })
      return res.end(body)
    }
    if (req.url === '/chunked') {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.write('first part, ')
      setTimeout(() => res.end('and the second'), 5)
      return
    }
    if (req.url === '/empty') {
      res.writeHead(204)
      return res.end()
    }
    let posted = ''
    req.on('data', (chunk) => (posted += chunk))
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'text/plain; charset=utf-8' })
      res.end(`${req.method} ${req.url} ${req.headers['x-who']} ${req.headers['content-length']}: ${posted}`)
    })
  })
}

const same = (answer: Answer | Failure) => {
  assert.ok(!isFailure(answer), JSON.stringify(answer))
  const { date: _date, ...headers } = answer.headers
  return { status: answer.status, headers, wire: answer.wire.toString('base64'), body: answer.body.toString('utf8') }
}

test("the generator's client gives the same answers as Node's: plain, gzip, chunked, empty and posted", async (t) => {
  const base = await listen(t, appServer())
  const raw = new RawHttpClient(base, 2)
  const node = new HttpClient(base, 2)
  t.after(() => (raw.close(), node.close()))
  for (const path of ['/plain', '/gzip', '/chunked', '/empty']) {
    for (const decode of [true, false]) {
      const spec = { path, headers: { cookie: 'session=x' }, decode }
      assert.deepEqual(same(await raw.request(spec)), same(await node.request(spec)), `${path}, decode ${decode}`)
    }
  }
  const post = { method: 'POST' as const, path: '/post?x=1', headers: { 'x-who': 'David', 'content-type': 'text/plain' }, body: 'Café ☕' }
  const answer = same(await raw.request(post))
  assert.deepEqual(answer, same(await node.request(post)))
  assert.equal(answer.status, 201)
  assert.equal(answer.body, 'POST /post?x=1 David 9: Café ☕')
  assert.deepEqual(answer.headers['set-cookie'], undefined)
  const plain = same(await raw.request({ path: '/plain', headers: {} }))
  assert.deepEqual(plain.headers['set-cookie'], ['a=1; Path=/', 'b=2; Path=/'])
  assert.equal(plain.body, PAGE)
})

test('more requests than connections wait for one, on kept-alive connections', async (t) => {
  const sockets = new Set<net.Socket>()
  const server = appServer()
  server.on('connection', (socket) => sockets.add(socket))
  const raw = new RawHttpClient(await listen(t, server), 2)
  t.after(() => raw.close())
  const answers = await Promise.all(Array.from({ length: 10 }, () => raw.request({ path: '/plain', headers: {} })))
  assert.ok(answers.every((a) => !isFailure(a) && a.status === 200))
  assert.equal(sockets.size, 2)
})

for (const [name, Client] of [['our reader', RawHttpClient], ["Node's client", HttpClient]] as const) {
  test(`a request on a kept-alive connection the server closed is sent again on a new one (${name})`, async (t) => {
    const seen = new WeakMap<object, number>()
    const server = http.createServer((req, res) => {
      const count = (seen.get(req.socket) ?? 0) + 1
      seen.set(req.socket, count)
      // The second request on a connection finds it closed, as after a keep-alive timeout.
      if (count === 2) return req.socket.destroy()
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 })
      res.end('ok')
    })
    const client = new Client(await listen(t, server), 1)
    t.after(() => client.close())
    const first = await client.request({ path: '/', headers: {} })
    assert.ok(!isFailure(first) && !first.retried)
    const second = await client.request({ path: '/', headers: {} })
    assert.ok(!isFailure(second), JSON.stringify(second))
    assert.equal(second.retried, true)
    assert.equal(second.body.toString(), 'ok')
    assert.equal(client.retries, 1)
  })
}

// A server that answers every request with the same bytes.
async function rawServer(t: TestContext, reply: string | Buffer | null): Promise<string> {
  const server = net.createServer((socket) => {
    socket.on('data', () => {
      if (reply !== null) socket.write(reply)
    })
    socket.on('error', () => {})
  })
  t.after(() => server.close())
  return listen(t, server)
}

test('a malformed answer fails with what is wrong, and one that never comes times out', async (t) => {
  const cases: [string | Buffer, RegExp][] = [
    ['HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokEXTRA', /5 bytes after a body of 2/],
    ['HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\nok', /two different content-lengths/],
    ['HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\nok', /both content-length and transfer-encoding/],
    ['HTTP/1.1 200 OK\r\ncontent-length: two\r\n\r\nok', /content-length "two"/],
    ['HTTP/1.1 200 OK\r\nbad header\r\n\r\n', /header line "bad header"/],
    ['HTTP/2 200\r\n\r\n', /status line/],
    ['HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nokX0\r\n\r\n', /a chunk not followed by CRLF/],
    ['HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: 4\r\n\r\nnope', /bad gzip/],
  ]
  for (const [reply, reason] of cases) {
    const raw = new RawHttpClient(await rawServer(t, reply), 1)
    const answer = await raw.request({ path: '/', headers: {} })
    raw.close()
    assert.ok(isFailure(answer), `${JSON.stringify(reply)} is a failure`)
    assert.match(answer.error, reason)
  }
  const silent = new RawHttpClient(await rawServer(t, null), 1)
  t.after(() => silent.close())
  const answer = await silent.request({ path: '/', headers: {}, timeoutMs: 100 })
  assert.ok(isFailure(answer))
  assert.match(answer.error, /no answer within 100 ms/)
})

test('a head is read as Node reads it: names lower-cased, Set-Cookie a list, repeats joined, first Content-Type kept', () => {
  const head = parseHead('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\ncontent-type: text/plain\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nVary: a\r\nVARY: b\r\nX-Pad:  \tpadded \t')
  assert.ok(typeof head !== 'string', String(head))
  assert.deepEqual(head.headers, { 'content-type': 'text/html', 'set-cookie': ['a=1', 'b=2'], vary: 'a, b', 'x-pad': 'padded' })
  assert.equal(head.length, null)
  assert.deepEqual(parseHead('HTTP/1.1 204 No Content\r\ncontent-length: 10'), { status: 204, headers: { 'content-length': '10' }, length: 0, chunked: false, close: false })
  assert.equal((parseHead('HTTP/1.1 200 OK\r\nConnection: close') as { close: boolean }).close, true)
})

test('a chunked body is decoded only once it is whole', () => {
  const whole = Buffer.from('5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nTrailer: x\r\n\r\n')
  for (let cut = 0; cut < whole.length; cut++) assert.equal(dechunk(whole.subarray(0, cut), 0), null, `cut at ${cut}`)
  const decoded = dechunk(whole, 0)
  assert.ok(decoded && typeof decoded !== 'string')
  assert.equal(decoded.body.toString(), 'hello world')
  assert.equal(decoded.end, whole.length)
})
