import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import type { FastifyInstance, FastifyServerOptions, InjectOptions, LightMyRequestResponse } from 'fastify'
import { buildApp } from '../server/app.ts'
import { loadConfig, type Config } from '../server/config.ts'
import { RateLimit } from '../server/lib/rate-limit.ts'
import { loadFixtures, PASSWORD, users, type UserName } from './fixtures.ts'
import { decodeStrictly } from './support/encodings.ts'
import { compiledWorkers } from './support/compiled-server.ts'

export const SECRET_KEY_BASE = 'a'.repeat(64) + 'b'.repeat(64)

export function tempStorage(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'campfire-test-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export function testConfig(storage: string, env: Record<string, string> = {}): Config {
  return loadConfig({ CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true', LOG_LEVEL: 'silent', JOB_CONCURRENCY: '1', CAMPFIRE_MIN_FREE_MB: '0', ...env })
}

export interface TestApp {
  app: FastifyInstance
  config: Config
  storage: string
  signInLimit: RateLimit
}

// A fresh app on a fresh SQLite file, with the fixture cast unless told otherwise.
// logger: e.g. { level: 'info', stream } to capture the log; silent by default.
export async function buildTestApp(t: TestContext, options: { fixtures?: boolean; env?: Record<string, string>; logger?: FastifyServerOptions['logger'] } = {}): Promise<TestApp> {
  const storage = tempStorage(t)
  const config = testConfig(storage, options.env)
  const signInLimit = new RateLimit(10, 3 * 60 * 1000)
  const app = await buildApp({ config, logger: options.logger ?? false, passwordCost: 4, compiledWorkers: await compiledWorkers(), signInLimit })
  t.after(() => app.close())
  if (options.fixtures !== false) app.store.writeNow((m) => loadFixtures(m.db))
  await app.ready()
  return { app, config, storage, signInLimit }
}

export const sameOrigin = { 'sec-fetch-site': 'same-origin' }

export function form(fields: Record<string, string>): { payload: string; headers: Record<string, string> } {
  return { payload: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...sameOrigin } }
}

export function cookieHeader(response: LightMyRequestResponse): string {
  return response.cookies.map((c) => `${c.name}=${c.value}`).join('; ')
}

// Signs in through POST /session, as the benchmark does, and returns the cookie header.
export async function signIn(app: FastifyInstance, name: UserName): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/session', ...form({ email_address: users[name].email!, password: PASSWORD }) })
  if (response.statusCode !== 302) throw new Error(`sign in as ${name} failed: ${response.statusCode}`)
  const session = response.cookies.find((c) => c.name === 'session_token')
  if (!session) throw new Error('no session_token cookie')
  return `session_token=${session.value}`
}

export function inject(app: FastifyInstance, cookie: string, options: InjectOptions): Promise<LightMyRequestResponse> {
  return app.inject({ ...options, headers: { cookie, ...(options.headers ?? {}) } })
}

// Every compressed answer a test app gives is decoded strictly (decodeStrictly), as curl or
// Node's zlib would, so a broken stream fails whichever test met it.
function decodeEveryAnswerStrictly(app: FastifyInstance): void {
  const inject = app.inject.bind(app) as (options: InjectOptions | string) => Promise<LightMyRequestResponse>
  app.inject = (async (options: InjectOptions | string) => {
    const response = await inject(options)
    if (response.headers['content-encoding'] !== undefined) decodeStrictly(response)
    return response
  }) as FastifyInstance['inject']
}

// A log stream for buildTestApp's logger option that keeps every line, parsed, and the
// error-level ones (error and fatal) apart.
export interface CapturedLog {
  stream: { write(line: string): void }
  lines: LogLine[]
  errors: LogLine[]
}
export type LogLine = Record<string, unknown> & { level: number; msg?: string }

export function capturedLog(): CapturedLog {
  const log: CapturedLog = {
    stream: {
      write(line: string) {
        const parsed = JSON.parse(line) as LogLine
        log.lines.push(parsed)
        if (parsed.level >= 50) log.errors.push(parsed)
      },
    },
    lines: [],
    errors: [],
  }
  return log
}
