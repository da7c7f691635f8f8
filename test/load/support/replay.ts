// bench:routes --replay: the responses our server gave, recorded whole, then answered by a bare
// server (replay-server.mjs) on the server's core. On raw sockets a run measures the generator
// alone: how many requests a second it can send, read and validate on its core, and its CPU per
// request. On Node's http server, or a bare Fastify app, it measures what that layer costs before
// any of our code (--replay-with).
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Answer } from './http.ts'
import { pinningAvailable, SERVER_CORE } from './server.ts'

const REPLAY_SERVER = fileURLToPath(new URL('./replay-server.mjs', import.meta.url))
// Per connection, not per response: a replayed one would be stale or wrong.
const DROPPED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date'])

// The headers a replay sends, in order, with a Content-Length of the body as it came off the wire.
function recordedHeaders(answer: Answer): [string, string][] {
  const pairs: [string, string][] = []
  for (const [name, value] of Object.entries(answer.headers)) {
    if (DROPPED.has(name) || value === undefined) continue
    for (const one of Array.isArray(value) ? value : [value]) pairs.push([name, String(one)])
  }
  pairs.push(['content-length', String(answer.wire.length)])
  return pairs
}

export const REPLAY_LAYERS = ['raw', 'http', 'fastify'] as const
export type ReplayLayer = (typeof REPLAY_LAYERS)[number]

export interface Recorded {
  path: string
  answer: Answer
}

export interface Replay {
  baseUrl: string
  pid: number
  stop(): Promise<void>
}

export async function startReplay(entries: Recorded[], layer: ReplayLayer = 'raw'): Promise<Replay> {
  const dir = mkdtempSync(join(tmpdir(), 'campfire-bench-replay-'))
  const table = join(dir, 'responses.json')
  writeFileSync(table, JSON.stringify(entries.map(({ path, answer }) => ({
    path, status: answer.status, headers: recordedHeaders(answer), body: answer.wire.toString('base64'),
  }))))
  const command = pinningAvailable() ? ['taskset', '-c', SERVER_CORE, process.execPath] : [process.execPath]
  const child: ChildProcess = spawn(command[0]!, [...command.slice(1), REPLAY_SERVER, table, layer], { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise<number>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split('\n')[0]!
      if (out.includes('\n')) resolve((JSON.parse(line) as { port: number }).port)
    })
    child.once('exit', (code) => reject(new Error(`the replay server exited (${code})`)))
  })
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
