// Requests made the way the verification harness makes them, on an in-process app: its login
// (`loadgen login`), its GETs (`loadgen http`: host, cookie and Accept-Encoding only), and a route
// judged as its preflight and load check judge it (harness-validator.ts).
import assert from 'node:assert/strict'
import type BetterSqlite3 from 'better-sqlite3'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { checkResponse, fromInject, harnessUrlencode, prepareContract, type Contract, type Expectations, type RouteKind } from './harness-validator.ts'

export const HARNESS_HOST = '127.0.0.1:25130'

// GET /session/new, then POST /session with the jar; every Set-Cookie is kept. Answers the jar as a Cookie header.
export async function harnessLogin(app: FastifyInstance, email: string, password: string): Promise<string> {
  const jar = new Map<string, string>()
  const keep = (response: LightMyRequestResponse) => {
    const setCookie = response.headers['set-cookie']
    for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      const pair = line.split(';')[0]!
      const at = pair.indexOf('=')
      if (at > 0) jar.set(pair.slice(0, at), pair.slice(at + 1))
    }
  }
  const cookieHeader = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
  keep(await app.inject({ method: 'GET', url: '/session/new', headers: { host: HARNESS_HOST } }))
  const response = await app.inject({
    method: 'POST',
    url: '/session',
    headers: { host: HARNESS_HOST, cookie: cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
    payload: `email_address=${harnessUrlencode(email)}&password=${harnessUrlencode(password)}`,
  })
  keep(response)
  assert.equal(response.statusCode, 302, `login failed: ${response.statusCode}`)
  assert.ok(jar.has('session_token'), 'login sets session_token')
  return cookieHeader()
}

export function harnessGet(app: FastifyInstance, cookie: string, url: string, gzip = true): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url, headers: { host: HARNESS_HOST, cookie, 'accept-encoding': gzip ? 'gzip' : 'identity' } })
}

export function excerpt(response: LightMyRequestResponse): string {
  return `${response.statusCode} ${response.headers['content-type']} ${JSON.stringify(response.body.slice(0, 200))}`
}

// The preflight on one gzip-negotiated response, then the load check on it and on fresh responses
// with and without gzip.
export async function validateRoute(
  app: FastifyInstance, cookie: string, db: BetterSqlite3.Database, expected: Expectations, watercooler: number,
  kind: Exclude<RouteKind, 'post_message'>, url: string,
): Promise<Contract> {
  const first = await harnessGet(app, cookie, url)
  const { contract, failures } = prepareContract(kind, fromInject(first), db, expected, watercooler)
  assert.deepEqual(failures, [], `${kind} preflight: ${excerpt(first)}`)
  for (const [label, response] of [['preflight response', first], ['gzip', await harnessGet(app, cookie, url)], ['identity', await harnessGet(app, cookie, url, false)]] as const) {
    assert.deepEqual(checkResponse(contract!, fromInject(response)).failures, [], `${kind} (${label})`)
  }
  return contract!
}
