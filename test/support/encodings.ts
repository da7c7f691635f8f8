import assert from 'node:assert/strict'
import { brotliDecompressSync } from 'node:zlib'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { gunzipExactly } from './harness-validator.ts'

// A response's body as curl, Node's zlib or the harness would read it: a gzip body must be
// exactly one member whose CRC-32 and length match, and nothing after it. Browsers skip those
// checks, so a test that reads compressed answers any more loosely can hide a broken stream.
export function decodeStrictly(response: LightMyRequestResponse): Buffer {
  const encoding = String(response.headers['content-encoding'] ?? 'identity')
  const length = response.headers['content-length']
  if (length !== undefined) assert.equal(Number(length), response.rawPayload.length, 'Content-Length matches the bytes sent')
  if (encoding === 'identity') return response.rawPayload
  if (encoding === 'br') return brotliDecompressSync(response.rawPayload)
  assert.equal(encoding, 'gzip', `a content encoding the client offered (${encoding})`)
  const decoded = gunzipExactly(response.rawPayload)
  assert.deepEqual(decoded.failures, [], 'the gzip stream is valid')
  return decoded.body!
}

export const ENCODINGS = {
  identity: 'identity',
  gzip: 'gzip',
  // What browsers send: the server picks one of them.
  browser: 'gzip, deflate, br',
} as const

// GETs the URL once in each encoding, decodes each strictly and checks that they are the same
// bytes; answers the identity body. A 204 (a history page with nothing in it) must carry no
// body in any encoding.
export async function getInEveryEncoding(app: FastifyInstance, cookie: string, url: string, status = 200): Promise<string> {
  const get = (acceptEncoding: string) => app.inject({ method: 'GET', url, headers: { cookie, 'accept-encoding': acceptEncoding } })
  const identity = await get(ENCODINGS.identity)
  assert.equal(identity.statusCode, status, `${url} answers ${status}`)
  assert.equal(identity.headers['content-encoding'], undefined, `${url} is not compressed for identity`)
  for (const acceptEncoding of [ENCODINGS.gzip, ENCODINGS.browser]) {
    const response = await get(acceptEncoding)
    assert.equal(response.statusCode, status, `${url} answers ${status} with ${acceptEncoding}`)
    if (status === 204) assert.equal(response.rawPayload.length, 0, `${url} has no body with ${acceptEncoding}`)
    else assert.deepEqual(decodeStrictly(response), identity.rawPayload, `${url} with ${acceptEncoding} decodes to the identity body`)
  }
  return identity.body
}
