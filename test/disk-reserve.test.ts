import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { closeSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs'
import { Agent, request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { projectPath } from '../server/lib/paths.ts'
import { Store } from '../server/models/store.ts'
import { loadFixtures, PASSWORD, rooms, users } from './fixtures.ts'
import { SECRET_KEY_BASE } from './helper.ts'
import { CookieJar, formPost, request, startServer, stopServer, type ServerProcess } from './support/server-process.ts'
import { tmpfsOf } from './support/small-filesystem.ts'

const MB = 1024 * 1024
const RESERVE_MB = 16
const UPLOAD_MB = 5
const TURBO = 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml'
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Answer {
  status: number
  retryAfter: string | null
}

// A message with a file of `bytes` random bytes, sent with its length or chunked (no length),
// 64 KB at a time. The answer may come before the body has all been sent (a refusal part-way).
function upload(server: ServerProcess, cookie: string, bytes: number, chunked: boolean): Promise<Answer> {
  const boundary = `----reserve${randomBytes(8).toString('hex')}`
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="message[attachment]"; filename="data.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`)
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
  const file = randomBytes(bytes)
  const { hostname, port } = new URL(server.baseUrl)
  return new Promise((resolve) => {
    let answer: Answer | null = null
    const headers: Record<string, string | number> = { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie, accept: TURBO, 'sec-fetch-site': 'same-origin' }
    if (!chunked) headers['content-length'] = head.length + file.length + tail.length
    // Kept alive, as a browser's connection is: a refusal read before the body has all been sent
    // leaves the connection open, and the rest of the body is read and discarded.
    const agent = new Agent({ keepAlive: true })
    const req = httpRequest({ hostname, port, method: 'POST', path: `/rooms/${rooms.hq.id}/messages`, headers, agent })
    req.on('response', (response) => {
      answer = { status: response.statusCode!, retryAfter: (response.headers['retry-after'] as string | undefined) ?? null }
      response.resume()
      response.on('end', () => {
        agent.destroy()
        resolve(answer!)
      })
    })
    req.on('error', () => {
      agent.destroy()
      resolve(answer ?? { status: 0, retryAfter: null })
    })
    void (async () => {
      const chunks = [head, ...Array.from({ length: Math.ceil(file.length / 65536) }, (_, i) => file.subarray(i * 65536, (i + 1) * 65536)), tail]
      for (const chunk of chunks) {
        if (answer || req.destroyed) return
        if (!req.write(chunk)) await new Promise((drained) => (req.once('drain', drained), req.once('close', drained)))
      }
      req.end()
    })()
  })
}

function freeBytes(dir: string): number {
  const stats = statfsSync(dir)
  return stats.bavail * stats.bsize
}

// Takes space until `leave` bytes are free, as another program filling the disk would.
function fillUntil(dir: string, name: string, leave: number): void {
  const fd = openSync(join(dir, name), 'a')
  try {
    const chunk = Buffer.alloc(256 * 1024, 7)
    while (freeBytes(dir) - chunk.length > leave) writeSync(fd, chunk)
    const rest = freeBytes(dir) - leave
    if (rest > 0) writeSync(fd, Buffer.alloc(rest, 7))
  } finally {
    closeSync(fd)
  }
}

// The lowest free space seen while `during` runs, sampled every 10 ms.
async function lowestFreeDuring(dir: string, during: () => Promise<unknown>): Promise<number> {
  let lowest = freeBytes(dir)
  const sampler = setInterval(() => (lowest = Math.min(lowest, freeBytes(dir))), 10)
  try {
    await during()
  } finally {
    clearInterval(sampler)
  }
  return Math.min(lowest, freeBytes(dir))
}

test('the free-space reserve is a floor: uploads in flight and chunked uploads count against it, and its last quarter is kept for text posts and sign-ins', { timeout: 180_000 }, async (t) => {
  const disk = tmpfsOf(64)
  if (!disk) return t.skip('mounting a tmpfs is not permitted here')
  t.after(() => disk.remove())
  const storage = join(disk.dir, 'storage')
  const store = new Store({ path: join(storage, 'db', 'production.sqlite3'), migrationsDir: projectPath('migrations') })
  store.writeNow((m) => loadFixtures(m.db))
  store.close()
  const server = await startServer({ CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true', CAMPFIRE_MIN_FREE_MB: String(RESERVE_MB) })
  t.after(() => stopServer(server, 'SIGKILL'))
  const reserve = RESERVE_MB * MB
  const jar = new CookieJar()
  const signIn = () => request(server.baseUrl, jar, '/session', formPost({ email_address: users.david.email!, password: PASSWORD }))
  assert.equal((await signIn()).status, 302)
  const cookie = jar.header()
  const textPost = async (body: string) => (await request(server.baseUrl, jar, `/rooms/${rooms.hq.id}/messages`, { ...formPost({ 'message[body]': body }), headers: { ...(formPost({}).headers as Record<string, string>), accept: TURBO } })).status
  const settle = () => sleep(1500) // the server samples statfs once a second

  // 12 MB above the reserve: room for two 5 MB uploads, not four.
  fillUntil(disk.dir, 'filler-1', reserve + 12 * MB)
  await settle()
  let parallel: Answer[] = []
  const lowestParallel = await lowestFreeDuring(disk.dir, async () => (parallel = await Promise.all(Array.from({ length: 4 }, () => upload(server, cookie, UPLOAD_MB * MB, false)))))
  t.diagnostic(`four parallel uploads at ${RESERVE_MB + 12} MB free: ${parallel.map((a) => a.status).join(', ')}; lowest free ${(lowestParallel / MB).toFixed(2)} MB`)
  assert.equal(parallel.filter((a) => a.status === 200).length, 2, 'two fit above the reserve')
  assert.deepEqual(parallel.filter((a) => a.status !== 200), [{ status: 507, retryAfter: '60' }, { status: 507, retryAfter: '60' }])
  assert.ok(lowestParallel >= reserve - MB, `the uploads stopped at the reserve (lowest free ${(lowestParallel / MB).toFixed(2)} MB)`)

  // Chunked uploads one after another, from 10 MB above the reserve: counted as they stream.
  rmSync(join(disk.dir, 'filler-1'))
  fillUntil(disk.dir, 'filler-2', reserve + 10 * MB)
  await settle()
  const chunked: Answer[] = []
  const lowestChunked = await lowestFreeDuring(disk.dir, async () => {
    for (let i = 0; i < 4; i++) chunked.push(await upload(server, cookie, UPLOAD_MB * MB, true))
  })
  t.diagnostic(`four chunked uploads in turn at ${RESERVE_MB + 10} MB free: ${chunked.map((a) => a.status).join(', ')}; lowest free ${(lowestChunked / MB).toFixed(2)} MB`)
  assert.deepEqual(chunked.map((a) => a.status), [200, 200, 507, 507], 'the upload that would cross the reserve is refused')
  assert.deepEqual(chunked.slice(2).map((a) => a.retryAfter), ['60', '60'])
  assert.ok(lowestChunked >= reserve - MB, `chunked uploads stopped at the reserve (lowest free ${(lowestChunked / MB).toFixed(2)} MB)`)

  // Within the reserve: text posts and sign-ins go on; a smaller upload does not.
  assert.equal(await textPost('inside the reserve'), 200)
  assert.equal((await upload(server, cookie, MB, false)).status, 507)

  // In the reserve's last quarter: still text posts, sign-ins and reading; other writes wait.
  fillUntil(disk.dir, 'filler-3', reserve / 8)
  await settle()
  assert.equal(await textPost('in the last quarter'), 200, 'a text post')
  assert.equal((await signIn()).status, 302, 'a sign-in')
  assert.equal((await request(server.baseUrl, jar, `/rooms/${rooms.hq.id}`)).status, 200, 'reading')
  const newRoom = await request(server.baseUrl, jar, '/rooms/opens', formPost({ 'room[name]': 'Lunch' }))
  assert.equal(newRoom.status, 507, 'creating a room waits for space')
  assert.equal(newRoom.headers.get('retry-after'), '60')
})
