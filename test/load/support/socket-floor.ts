// bench:cable's and bench:fanout's floor phase: the same paced posts, the same number of
// clients and the same bytes per client, against floor-server.ts (a bare broadcaster pinned to
// the server's core) instead of Campfire. Its post → all clients time is what this machine's
// loopback TCP and this generator allow at best, measured in the same run, so a report can say
// how far above the floor the server is rather than only how far from a target set on other
// hardware. Each post is timed from the moment the broadcaster is told to send it.
import { spawn, type ChildProcess } from 'node:child_process'
import http from 'node:http'
import { fileURLToPath } from 'node:url'
import { round, summarize, type Summary } from './measure.ts'
import { RawWebSocket } from './raw-websocket.ts'
import { RAISE_FILES } from './server.ts'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const FLOOR_SERVER = fileURLToPath(new URL('./floor-server.ts', import.meta.url))
const BMK = Buffer.from('bmk')
const HANDSHAKES_IN_FLIGHT = 50
const START_TIMEOUT_MS = 30_000
const GO_TIMEOUT_MS = 30_000
// Far above the paced phase's markers, so a stray frame could never be counted twice.
const FIRST_SEQ = 1_000_000_000

export interface FloorOptions {
  clients: number
  bytesPerPost: number
  // One frame per post, as an unread notice is (bench:fanout), instead of a marked frame and a
  // short notice (bench:cable's message and unread notice).
  singleFrame?: boolean
  posts: number
  intervalMs: number
  core: string | null // taskset core list for the floor server, or null
  connectTimeoutMs: number
  drainSecs: number
}

export interface FloorReport {
  clients: number
  ready: number
  bytes_per_post: number // what the floor server wrote to each client per post
  posts: number
  complete: number
  post_latency: Summary
  first_client: Summary
  all_clients: Summary
  write_loop: Summary // the floor server's own loop over every socket, as it reported it
}

// The longest a floor phase can take, for the caller's watchdog.
export function floorBudgetMs(options: Pick<FloorOptions, 'posts' | 'intervalMs' | 'connectTimeoutMs' | 'drainSecs'>): number {
  return START_TIMEOUT_MS + options.connectTimeoutMs + options.posts * options.intervalMs + GO_TIMEOUT_MS + options.drainSecs * 1000
}

interface Post {
  sentAt: number
  expected: number // clients open when it was sent
  seen: Uint8Array
  count: number
  firstAt: number
  completeAt: number | null
}

// Clients of the floor server, counting each post once per client as its frame is read.
class FloorClients {
  readonly sockets: RawWebSocket[] = []
  readonly posts = new Map<number, Post>()
  open = 0
  opened = 0

  constructor(private readonly size: number) {}

  async connect(port: number, timeoutMs: number): Promise<void> {
    let next = 0
    let settled = 0
    const start = () => {
      const index = next++
      let done = false
      const settle = () => {
        if (done) return
        done = true
        settled++
        if (next < this.size) start()
      }
      this.sockets.push(
        new RawWebSocket(
          { host: '127.0.0.1', port, path: '/', headers: {}, protocols: ['actioncable-v1-json'], handshakeTimeoutMs: timeoutMs },
          {
            onOpen: () => {
              this.open++
              this.opened++
              settle()
            },
            onText: (payload, at) => this.receive(index, payload, at),
            onClose: (_reason, wasOpen) => {
              if (wasOpen) this.open--
              settle()
            },
          },
        ),
      )
    }
    for (let i = 0; i < Math.min(HANDSHAKES_IN_FLIGHT, this.size); i++) start()
    const deadline = performance.now() + timeoutMs
    while (settled < this.size && performance.now() < deadline) await sleep(20)
    // A client still shaking hands at the deadline would join mid-phase: it is cut instead.
    for (const socket of this.sockets) if (!socket.isOpen) socket.destroy()
  }

  send(seq: number): Post {
    const post: Post = { sentAt: performance.now(), expected: this.open, seen: new Uint8Array(this.size), count: 0, firstAt: 0, completeAt: null }
    this.posts.set(seq, post)
    return post
  }

  get drained(): boolean {
    for (const post of this.posts.values()) if (post.completeAt === null && post.count < Math.min(post.expected, this.open)) return false
    return true
  }

  close(): void {
    for (const socket of this.sockets) socket.destroy()
  }

  // The digits between "bmk" and "z", as the main generator reads them.
  private receive(index: number, payload: Buffer, at: number): void {
    const found = payload.indexOf(BMK)
    if (found < 0) return
    let seq = 0
    let i = found + 3
    for (; i < payload.length && i - found - 3 < 15 && payload[i]! >= 48 && payload[i]! <= 57; i++) seq = seq * 10 + (payload[i]! - 48)
    if (i === found + 3 || payload[i] !== 0x7a) return
    const post = this.posts.get(seq)
    if (!post || post.seen[index]) return
    post.seen[index] = 1
    if (post.count++ === 0) post.firstAt = at
    if (post.count === post.expected) post.completeAt = at
  }
}

export async function measureFloor(options: FloorOptions): Promise<FloorReport> {
  const { child, port } = await startFloorServer(options.core)
  const kill = () => child.kill('SIGKILL')
  process.once('exit', kill)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 })
  const clients = new FloorClients(options.clients)
  try {
    await clients.connect(port, options.connectTimeoutMs)
    const answers = await postPaced(clients, agent, port, options)
    const deadline = performance.now() + options.drainSecs * 1000
    while (!clients.drained && performance.now() < deadline) await sleep(5)
    const all = [...clients.posts.values()]
    const complete = all.filter((post) => post.completeAt !== null)
    return {
      clients: options.clients,
      ready: clients.opened,
      bytes_per_post: answers.bytes.length > 0 ? Math.max(...answers.bytes) : 0,
      posts: all.length,
      complete: complete.length,
      post_latency: summarize(answers.latency),
      first_client: summarize(all.filter((post) => post.count > 0).map((post) => post.firstAt - post.sentAt)),
      all_clients: summarize(complete.map((post) => post.completeAt! - post.sentAt)),
      write_loop: summarize(answers.loops),
    }
  } finally {
    clients.close()
    agent.destroy()
    process.off('exit', kill)
    child.kill('SIGTERM')
  }
}

// One post every intervalMs, open loop, as the paced phase does.
async function postPaced(clients: FloorClients, agent: http.Agent, port: number, options: FloorOptions) {
  const answers = { latency: [] as number[], loops: [] as number[], bytes: [] as number[] }
  const start = performance.now()
  const sends: Promise<void>[] = []
  for (let n = 0; n < options.posts; n++) {
    const wait = start + n * options.intervalMs - performance.now()
    if (wait > 0) await sleep(wait)
    const seq = FIRST_SEQ + n
    const post = clients.send(seq)
    sends.push(
      go(agent, port, seq, options.bytesPerPost, options.singleFrame ? 1 : 2).then((answer) => {
        answers.latency.push(performance.now() - post.sentAt)
        answers.loops.push(round(answer.loop_ms, 3))
        answers.bytes.push(answer.bytes)
      }),
    )
  }
  await Promise.all(sends)
  return answers
}

function startFloorServer(core: string | null): Promise<{ child: ChildProcess; port: number }> {
  const pin = core === null ? '' : `taskset -c ${core} `
  const child = spawn('sh', ['-c', `${RAISE_FILES}; exec ${pin}"$0" "$@"`, process.execPath, '--import', 'tsx', FLOOR_SERVER, '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    let out = ''
    const fail = (error: Error) => {
      clearTimeout(timer)
      child.kill('SIGKILL')
      reject(error)
    }
    const timer = setTimeout(() => fail(new Error(`the floor server did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS)
    child.on('error', fail)
    child.once('exit', (code) => fail(new Error(`the floor server exited (${code}) before listening`)))
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening (\d+)\n/.exec(out)
      if (!match) return
      clearTimeout(timer)
      child.removeAllListeners('exit')
      resolve({ child, port: Number(match[1]) })
    })
  })
}

function go(agent: http.Agent, port: number, seq: number, bytes: number, frames: 1 | 2): Promise<{ loop_ms: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method: 'POST', path: `/go?seq=${seq}&bytes=${bytes}&frames=${frames}`, agent, headers: { 'content-length': '0' }, timeout: GO_TIMEOUT_MS }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('error', reject)
      response.on('end', () => {
        const answer = parse(body)
        if (response.statusCode === 200 && answer) resolve(answer)
        else reject(new Error(`the floor server answered ${response.statusCode}: ${body.slice(0, 100)}`))
      })
    })
    request.on('timeout', () => request.destroy(new Error(`the floor server did not answer within ${GO_TIMEOUT_MS / 1000} s`)))
    request.on('error', reject)
    request.end()
  })
}

function parse(body: string): { loop_ms: number; bytes: number } | null {
  try {
    const answer = JSON.parse(body) as { loop_ms?: unknown; bytes?: unknown }
    return typeof answer.loop_ms === 'number' && typeof answer.bytes === 'number' ? { loop_ms: answer.loop_ms, bytes: answer.bytes } : null
  } catch {
    return null
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
