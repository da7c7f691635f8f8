// bench:cable's floor phase: the same paced posts, the same number of clients and the same
// bytes per client, against floor-server.ts (a bare broadcaster pinned to the server's core)
// instead of Campfire. Its post → all clients time is what this machine's loopback TCP and this
// generator allow at best, measured in the same run, so a report can say how far above the
// floor the server is rather than only how far from a target set on other hardware.
import { spawn, type ChildProcess } from 'node:child_process'
import http from 'node:http'
import { fileURLToPath } from 'node:url'
import { round, summarize, type Summary } from './measure.ts'
import { RawWebSocket } from './raw-websocket.ts'

const FLOOR_SERVER = fileURLToPath(new URL('./floor-server.ts', import.meta.url))
const BMK = Buffer.from('bmk')
const HANDSHAKES_IN_FLIGHT = 50
// Far above the paced phase's markers, so a stray frame could never be counted twice.
const FIRST_SEQ = 1_000_000_000

export interface FloorOptions {
  clients: number
  bytesPerPost: number
  posts: number
  intervalMs: number
  core: string | null // taskset core list for the floor server, or null
  drainSecs: number
}

export interface FloorReport {
  clients: number
  ready: number
  bytes_per_post: number
  posts: number
  complete: number
  post_latency: Summary
  first_client: Summary
  all_clients: Summary
  write_loop: Summary // the floor server's own loop over every socket, as it reported it
}

interface Post {
  sentAt: number
  seen: Uint8Array
  count: number
  firstAt: number
  completeAt: number | null
}

export async function measureFloor(options: FloorOptions): Promise<FloorReport> {
  const { child, port } = await startFloorServer(options.core)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 })
  const sockets: RawWebSocket[] = []
  try {
    const posts = new Map<number, Post>()
    let ready = 0
    const receive = (index: number, payload: Buffer, at: number) => {
      const found = payload.indexOf(BMK)
      if (found < 0) return
      let seq = 0
      let i = found + 3
      for (; i < payload.length && payload[i]! >= 48 && payload[i]! <= 57; i++) seq = seq * 10 + (payload[i]! - 48)
      const post = posts.get(seq)
      if (!post || post.seen[index]) return
      post.seen[index] = 1
      if (post.count++ === 0) post.firstAt = at
      if (post.count === ready) post.completeAt = at
    }
    await connectAll(port, options.clients, sockets, receive, () => ready++)

    const latency: number[] = []
    const loops: number[] = []
    const start = performance.now()
    const sends: Promise<void>[] = []
    for (let n = 0; n < options.posts; n++) {
      const wait = start + n * options.intervalMs - performance.now()
      if (wait > 0) await sleep(wait)
      const seq = FIRST_SEQ + n
      const post: Post = { sentAt: performance.now(), seen: new Uint8Array(options.clients), count: 0, firstAt: 0, completeAt: null }
      posts.set(seq, post)
      sends.push(
        go(agent, port, seq, options.bytesPerPost).then((loopMs) => {
          latency.push(performance.now() - post.sentAt)
          loops.push(loopMs)
        }),
      )
    }
    await Promise.all(sends)
    const deadline = performance.now() + options.drainSecs * 1000
    while ([...posts.values()].some((post) => post.completeAt === null) && performance.now() < deadline) await sleep(5)
    const all = [...posts.values()]
    const complete = all.filter((post) => post.completeAt !== null)
    return {
      clients: options.clients,
      ready,
      bytes_per_post: options.bytesPerPost,
      posts: all.length,
      complete: complete.length,
      post_latency: summarize(latency),
      first_client: summarize(all.filter((post) => post.count > 0).map((post) => post.firstAt - post.sentAt)),
      all_clients: summarize(complete.map((post) => post.completeAt! - post.sentAt)),
      write_loop: summarize(loops),
    }
  } finally {
    for (const socket of sockets) socket.destroy()
    agent.destroy()
    child.kill('SIGTERM')
  }
}

function startFloorServer(core: string | null): Promise<{ child: ChildProcess; port: number }> {
  const raise = 'ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null'
  const pin = core === null ? '' : `taskset -c ${core} `
  const child = spawn('sh', ['-c', `${raise}; exec ${pin}"$0" "$@"`, process.execPath, '--import', 'tsx', FLOOR_SERVER, '0'], { stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error('the floor server did not start within 30 s'))
    }, 30_000)
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening (\d+)/.exec(out)
      if (!match) return
      clearTimeout(timer)
      resolve({ child, port: Number(match[1]) })
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the floor server exited (${code}) before listening`))
    })
  })
}

async function connectAll(port: number, count: number, sockets: RawWebSocket[], receive: (index: number, payload: Buffer, at: number) => void, opened: () => void): Promise<void> {
  let next = 0
  let settled = 0
  const open = () => {
    const index = next++
    let done = false
    const settle = () => {
      if (done) return
      done = true
      settled++
      if (next < count) open()
    }
    sockets.push(
      new RawWebSocket(
        { host: '127.0.0.1', port, path: '/', headers: {}, protocols: ['actioncable-v1-json'], handshakeTimeoutMs: 30_000 },
        {
          onOpen: () => {
            opened()
            settle()
          },
          onText: (payload, at) => receive(index, payload, at),
          onClose: settle,
        },
      ),
    )
  }
  for (let i = 0; i < Math.min(HANDSHAKES_IN_FLIGHT, count); i++) open()
  const deadline = performance.now() + 120_000
  while (settled < count && performance.now() < deadline) await sleep(20)
}

function go(agent: http.Agent, port: number, seq: number, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method: 'POST', path: `/go?seq=${seq}&bytes=${bytes}`, agent, headers: { 'content-length': '0' } }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () => {
        try {
          resolve(round((JSON.parse(body) as { loop_ms: number }).loop_ms, 3))
        } catch {
          reject(new Error(`the floor server answered ${response.statusCode}: ${body.slice(0, 100)}`))
        }
      })
    })
    request.on('error', reject)
    request.end()
  })
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
