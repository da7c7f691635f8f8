import { test } from 'node:test'
import assert from 'node:assert/strict'
import { encode } from 'uqr'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../helper.ts'
import { decodeQrCodeId, qrCodeId, qrCodePath } from '../../server/lib/qr-code.ts'

const URL_TEXT = 'http://localhost:3000/session/transfers/eyJfcmFpbHMiOnsiZGF0YSI6MSwiZXhwIjoiMjAyNS0wNi0xNVQxNjozNDo1Ni43ODlaIiwicHVyIjoidXNlci90cmFuc2ZlciJ9fQ--5329bd4535748caac88625493204a3d2ed98be5af1bd3b85512135441e7f65de'

function get(app: FastifyInstance, url: string) {
  return app.inject({ method: 'GET', url })
}

// Reads the SVG back into a matrix of modules: its viewBox gives the size, each "M x y h w v1
// h-w z" of the path a run of dark modules.
function modulesOf(svg: string): boolean[][] {
  const viewBox = /<svg [^>]*viewBox="0 0 (\d+) (\d+)"/.exec(svg)
  assert.ok(viewBox, 'the SVG has a viewBox')
  const size = Number(viewBox[1])
  assert.equal(Number(viewBox[2]), size, 'the viewBox is square')
  assert.match(svg, new RegExp(`<rect width="${size}" height="${size}" fill="white"/>`), 'a white background the size of the code')
  const path = /<path d="([^"]*)" fill="black"\/>/.exec(svg)
  assert.ok(path, 'the dark modules are one black path')
  const matrix = Array.from({ length: size }, () => Array<boolean>(size).fill(false))
  const runs = path[1]!.match(/M\d+ \d+h\d+v1h-\d+z/g) ?? []
  assert.equal(runs.join(''), path[1], 'the path is made of runs only')
  for (const run of runs) {
    const [, x, y, w, back] = /M(\d+) (\d+)h(\d+)v1h-(\d+)z/.exec(run)!.map(Number)
    assert.equal(back, w)
    for (let i = 0; i < w!; i++) matrix[y!]![x! + i] = true
  }
  return matrix
}

// A finder pattern: a 7×7 dark ring, a light ring inside it, a 3×3 dark centre.
function hasFinderAt(matrix: boolean[][], top: number, left: number): boolean {
  for (let y = 0; y < 7; y++) {
    for (let x = 0; x < 7; x++) {
      const ring = Math.max(Math.abs(y - 3), Math.abs(x - 3))
      if (matrix[top + y]![left + x] !== (ring !== 2)) return false
    }
  }
  return true
}

test('a QR code link is the text in padded URL-safe base64, as Ruby’s urlsafe_encode64 writes it', () => {
  for (const text of [URL_TEXT, 'http://x/join/Ab12-Cd34-Ef56', 'a', 'ab', 'abc', 'ünïcödé ✓', '?>?>?>']) {
    const ruby = Buffer.from(text, 'utf8').toString('base64').replace(/\+/g, '-').replace(/\//g, '_')
    assert.equal(qrCodeId(text), ruby, text)
    assert.equal(qrCodePath(text), `/qr_code/${ruby}`)
    assert.equal(decodeQrCodeId(ruby), text)
  }
})

test('GET /qr_code/:id answers anyone with an SVG QR code: exactly image/svg+xml, cached publicly for a year', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await get(app, qrCodePath(URL_TEXT))
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['content-type'], 'image/svg+xml')
  assert.equal(response.headers['cache-control'], 'max-age=31556952, public')
  assert.match(response.body, /^<\?xml version="1\.0" encoding="UTF-8"\?><svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
  assert.match(response.body, /<\/svg>$/)
  assert.doesNotMatch(response.body, /<script|on\w+=/i, 'nothing but shapes')
})

test('the SVG’s modules are exactly the QR code of the text at error correction H, with finder patterns in three corners', async (t) => {
  const { app } = await buildTestApp(t)
  for (const text of [URL_TEXT, 'http://localhost/join/Ab12-Cd34-Ef56', 'ünïcödé ✓']) {
    const matrix = modulesOf((await get(app, qrCodePath(text))).body)
    const expected = encode(text, { ecc: 'H', border: 4 })
    assert.equal(matrix.length, expected.size, 'the smallest version at level H, plus a four-module quiet zone')
    assert.deepEqual(matrix, expected.data, text)
    const inner = matrix.length - 8
    assert.ok(hasFinderAt(matrix, 4, 4) && hasFinderAt(matrix, 4, inner - 7 + 4) && hasFinderAt(matrix, inner - 7 + 4, 4), 'finder patterns top left, top right, bottom left')
    assert.ok(!hasFinderAt(matrix, inner - 7 + 4, inner - 7 + 4), 'and none bottom right')
    assert.ok(matrix.slice(0, 4).every((row) => row.every((dark) => !dark)), 'a light quiet zone')
  }
})

test('GET /qr_code/:id also takes the id without its padding, as urlsafe_decode64 does', async (t) => {
  const { app } = await buildTestApp(t)
  const text = 'http://localhost/join/Ab12-Cd34-Ef5'
  const padded = qrCodeId(text)
  assert.ok(padded.endsWith('='), 'this text needs padding')
  const [withPadding, withoutPadding] = await Promise.all([get(app, `/qr_code/${padded}`), get(app, `/qr_code/${padded.replace(/=+$/, '')}`)])
  assert.equal(withoutPadding.statusCode, 200)
  assert.equal(withoutPadding.body, withPadding.body)
})

test('GET /qr_code/:id answers a malformed id with a 400 (or the router’s 404 or 414), never a 500', async (t) => {
  const { app } = await buildTestApp(t)
  const invalidUtf8 = Buffer.from([0x68, 0x69, 0xff, 0xfe]).toString('base64url')
  const cases: [string, string][] = [
    ['characters outside base64', '!!!!'],
    ['plain base64’s alphabet', Buffer.from('http://x/?a>>b').toString('base64')],
    ['one stray character', 'aHR0cA'.slice(0, 5)],
    ['padding that does not fit', 'QUJD='],
    ['too much padding', 'QQ==='],
    ['padding in the middle', 'QQ==QQ=='],
    ['stray bits in the last character', 'QR=='],
    ['bytes that are not UTF-8', invalidUtf8],
    ['a percent-encoded NUL', '%00'],
    ['text longer than 1 KB', Buffer.from('x'.repeat(1025)).toString('base64url')],
    ['an id past the router’s limit', 'A'.repeat(4000)],
    ['nothing', ''],
  ]
  for (const [what, id] of cases) {
    const response = await get(app, `/qr_code/${id}`)
    assert.ok([400, 404, 414].includes(response.statusCode), `${what}: ${response.statusCode}`)
  }
  assert.equal(decodeQrCodeId(qrCodeId('x'.repeat(1025))), null, 'more than 1 KB of text, whatever the router allows')
  assert.equal(decodeQrCodeId(qrCodeId('x'.repeat(1024))), 'x'.repeat(1024))
  const atTheLimit = await get(app, qrCodePath('x'.repeat(700)))
  assert.equal(atTheLimit.statusCode, 200, 'a long text that still fits')
})
