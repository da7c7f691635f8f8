// Does thumbnail work delay other requests? `npm run bench:uploads`. One read route of the
// routes profile (room_show by default) is measured three times in one run on the same server:
// alone, while --uploads large JPEGs (about --megapixels each, --uploaders at a time) are posted
// into HQ, and alone again. Every read is validated against the route's contract, as in
// bench:routes; every upload must answer with a message whose <img> is a thumbnail (a
// representation URL, not the original) within 1200×800, fetched and decoded; every
// acknowledged upload is audited in the database (its variant record is there).
//
//   npm run bench:uploads
//   npm run bench:uploads -- --uploads 20 --megapixels 12 --route room_show --clients 16
//
// Other options: --uploaders 2, --warmup 5, --duration 10 (seconds of each quiet phase),
// --server-dir DIR, --tsx, --no-pin, --out DIR (tmp/bench). Saves tmp/bench/uploads-<stamp>.json.
import BetterSqlite3 from 'better-sqlite3'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import sharp from 'sharp'
import { hit, newSample, prepareContracts, prepareTarget, type RouteOptions, type Target } from './routes.ts'
import { ROOT } from './support/fixture.ts'
import { HttpClient } from './support/http.ts'
import { round } from './support/measure.ts'
import { choices, flag, number, path, readOptions } from './support/options.ts'
import { makeMeters, reexecPinned, stampNow, stopServer } from './support/server.ts'
import { percentiles } from './support/stats.ts'

const SCRIPT = fileURLToPath(import.meta.url)
const PINNED_ENV = 'CAMPFIRE_BENCH_UPLOADS_PINNED'
const ROUTES = ['room_show', 'messages_page', 'sidebar', 'search'] as const

const OPTIONS = {
  uploads: number('N', 'how many JPEGs are posted during the loaded phase', 20, { min: 1, integer: true }),
  megapixels: number('MP', 'the size of each JPEG, in megapixels (4:3)', 12, { min: 0.1 }),
  uploaders: number('N', 'uploads in flight at once', 2, { min: 1, integer: true }),
  route: choices('ROUTE', 'the read route measured', ROUTES, ['room_show']),
  clients: number('N', 'closed-loop clients on the read route', 16, { min: 1, integer: true }),
  warmup: number('SECS', 'the warmup before the first phase (4 clients)', 5, { min: 0 }),
  duration: number('SECS', 'how long each quiet phase lasts (the loaded phase lasts until the uploads end)', 10, { min: 1 }),
  'server-dir': path('DIR', "start another checkout's server", '.', 'this checkout'),
  out: path('DIR', 'where the report goes', 'tmp/bench'),
  'no-pin': flag('do not pin the server and the generator to their cores'),
  tsx: flag("run the server's sources under tsx instead of compiling them as npm start does"),
}

const SUMMARY = `Measures one read route's latency alone, while large JPEGs are uploaded (each made into a
thumbnail by the server), and alone again, in one run on one server. Every read is validated, every
upload's thumbnail fetched and checked, every upload audited. Saves tmp/bench/uploads-<stamp>.json.`

interface Photo {
  name: string
  bytes: Buffer
}

// Distinct noisy photos, so none compresses away and none is a copy of another.
async function makePhotos(count: number, megapixels: number): Promise<Photo[]> {
  const width = Math.round(Math.sqrt((megapixels * 1_000_000 * 4) / 3))
  const height = Math.round((width * 3) / 4)
  const photos: Photo[] = []
  for (let i = 0; i < count; i++) {
    const bytes = await sharp({ create: { width, height, channels: 3, noise: { type: 'gaussian', mean: 90 + (i % 60), sigma: 40 } } } as sharp.SharpOptions).jpeg({ quality: 80 }).toBuffer()
    photos.push({ name: `photo-${String(i + 1).padStart(2, '0')}.jpg`, bytes })
  }
  return photos
}

interface UploadResult {
  ok: boolean
  ms: number
  reason?: string
  messageId?: number
  thumb?: { width: number; height: number; bytes: number }
}

// One upload as the composer sends it, then the response's first <img src> fetched and decoded.
async function upload(base: string, target: Target, photo: Photo, index: number): Promise<UploadResult> {
  const started = performance.now()
  const form = new FormData()
  form.set('message[client_message_id]', `bench-upload-${Date.now()}-${index}`)
  form.set('message[attachment]', new Blob([photo.bytes], { type: 'image/jpeg' }), photo.name)
  const headers = { cookie: target.cookie, accept: 'text/vnd.turbo-stream.html, text/html', 'sec-fetch-site': 'same-origin' }
  try {
    const response = await fetch(`${base}/rooms/${target.labels['rooms.hq']}/messages`, { method: 'POST', body: form, headers })
    const html = await response.text()
    const ms = performance.now() - started
    if (response.status >= 300) return { ok: false, ms, reason: `status ${response.status}` }
    const id = /data-message-id="(\d+)"/.exec(html)?.[1]
    // The attachment's <img> (the message's first image is its author's avatar).
    const src = /<img src="([^"]+)"[^>]* class="message__attachment"/.exec(html)?.[1]?.replaceAll('&amp;', '&')
    if (!id || !src || !src.includes('/representations/')) return { ok: false, ms, reason: `no message id or attachment <img src> in the response (${response.status} ${response.headers.get('content-type')}): ${html.slice(0, 300)}` }
    const image = await fetch(new URL(src, base), { headers: { cookie: target.cookie } })
    const bytes = Buffer.from(await image.arrayBuffer())
    if (image.status !== 200) return { ok: false, ms, reason: `thumbnail status ${image.status}` }
    const { width = 0, height = 0 } = await sharp(bytes).metadata()
    if (width > 1200 || height > 800) return { ok: false, ms, reason: `thumbnail is ${width}×${height}` }
    return { ok: true, ms, messageId: Number(id), thumb: { width, height, bytes: bytes.length } }
  } catch (error) {
    return { ok: false, ms: performance.now() - started, reason: (error as Error).message }
  }
}

async function main(): Promise<void> {
  const v = readOptions({ name: 'bench:uploads', summary: SUMMARY, options: OPTIONS })
  if (reexecPinned(SCRIPT, ROOT, PINNED_ENV, !v.noPin)) return
  const route = v.route[0]!
  const stamp = stampNow()
  mkdirSync(v.out, { recursive: true })
  console.log(`bench:uploads: making ${v.uploads} JPEGs of ${v.megapixels} MP…`)
  const photos = await makePhotos(v.uploads, v.megapixels)
  console.log(`bench:uploads: ${round(photos.reduce((s, p) => s + p.bytes.length, 0) / 1e6, 1)} MB in all`)
  const routeOptions: RouteOptions = { clients: v.clients, duration: v.duration, warmup: v.warmup, routes: [route], gzip: true, mixedWriteRate: 0, pin: !v.noPin, fixture: null, base: null, db: null, labels: null, cookie: null, password: null, inPlace: false, serverDir: v.serverDir, processes: {}, tsx: v.tsx, out: v.out }
  const clients: HttpClient[] = []
  const client = (base: string, sockets = 4) => {
    const c = new HttpClient(base, sockets)
    clients.push(c)
    return c
  }
  const target = await prepareTarget(routeOptions, stamp, (base) => client(base))
  try {
    const db = new BetterSqlite3(target.dbPath, { readonly: true, fileMustExist: true })
    db.pragma('busy_timeout = 10000')
    const contracts = await prepareContracts(client(target.baseUrl), target, db, [route])
    const contract = contracts.get(route)!
    const http = client(target.baseUrl, v.clients + 2)
    const meters = makeMeters(target.server?.pid ?? null)
    const warm = newSample()
    const warmEnd = performance.now() + v.warmup * 1000
    await readLoop(4, () => performance.now() >= warmEnd, () => hit(http, route, contract, target, true, warm, []))

    const phases = []
    for (const phase of ['quiet', 'uploading', 'quiet again'] as const) {
      const sample = newSample()
      meters.lap()
      const started = performance.now()
      let uploads: UploadResult[] = []
      if (phase === 'uploading') {
        let next = 0
        let done = false
        const uploaders = Promise.all(Array.from({ length: v.uploaders }, async () => {
          while (next < photos.length) {
            const index = next++
            uploads[index] = await upload(target.baseUrl, target, photos[index]!, index)
          }
        })).then(() => { done = true })
        await readLoop(v.clients, () => done, () => hit(http, route, contract, target, true, sample, []))
        await uploaders
      } else {
        const end = started + v.duration * 1000
        await readLoop(v.clients, () => performance.now() >= end, () => hit(http, route, contract, target, true, sample, []))
      }
      const secs = (performance.now() - started) / 1000
      const lap = meters.lap()
      const latency = percentiles(sample.latencies)
      const row = {
        phase, secs: round(secs, 1), rps: round(sample.ok / secs, 1), latency, ok: sample.ok, errors: sample.errors, invalid: sample.invalid.total,
        reasons: { ...sample.invalid.counts, ...sample.errorReasons.counts }, server_cpu_percent: lap.server_cpu_percent,
        ...(phase === 'uploading' ? { uploads: summariseUploads(uploads) } : {}),
      }
      phases.push(row)
      console.log(`  ${phase.padEnd(12)} ${String(row.rps).padStart(8)} req/s  p50 ${latency.p50_ms} / p95 ${latency.p95_ms} / p99 ${latency.p99_ms} / max ${latency.max_ms} ms  ok ${row.ok} invalid ${row.invalid} errors ${row.errors}  server ${lap.server_cpu_percent ?? '–'}%${row.uploads ? `  uploads ${row.uploads.ok}/${v.uploads} ok, post p50 ${row.uploads.post_ms.p50_ms} / max ${row.uploads.post_ms.max_ms} ms` : ''}`)
      uploads = []
    }
    const uploaded = phases[1]!.uploads!
    const audited = uploaded.message_ids.length === 0 ? 0 : (db.prepare(
      `SELECT COUNT(*) FROM messages m JOIN active_storage_attachments a ON a.record_type = 'Message' AND a.record_id = m.id AND a.name = 'attachment'
       JOIN active_storage_variant_records v ON v.blob_id = a.blob_id WHERE m.id IN (SELECT value FROM json_each(?))`,
    ).pluck().get(JSON.stringify(uploaded.message_ids)) as number)
    db.close()
    const failed = phases.some((p) => p.errors + p.invalid > 0) || uploaded.ok !== v.uploads || audited !== v.uploads
    const report = { benchmark: 'uploads', stamp, options: { ...v, out: undefined }, route, phases, audit: { uploads: v.uploads, with_thumbnail_record: audited }, passed: !failed }
    const file = join(v.out, `uploads-${stamp}.json`)
    writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
    const [quiet, loaded, again] = phases
    console.log(`bench:uploads: ${report.passed ? 'passed' : 'FAILED'}; ${route} p99 ${quiet!.latency.p99_ms} ms quiet, ${loaded!.latency.p99_ms} ms uploading (×${round((loaded!.latency.p99_ms ?? 0) / (quiet!.latency.p99_ms || 1), 2)}), ${again!.latency.p99_ms} ms quiet again; ${audited}/${v.uploads} uploads have a thumbnail record\n  JSON: ${file}`)
    process.exitCode = report.passed ? 0 : 1
  } finally {
    for (const c of clients) c.close()
    if (target.server) await stopServer(target.server)
    if (target.storage) rmSync(target.storage, { recursive: true, force: true })
  }
}

function summariseUploads(uploads: UploadResult[]) {
  const ok = uploads.filter((u) => u.ok)
  const failures: Record<string, number> = {}
  for (const u of uploads) if (!u.ok) failures[u.reason ?? 'unknown'] = (failures[u.reason ?? 'unknown'] ?? 0) + 1
  return { ok: ok.length, failures, post_ms: percentiles(uploads.map((u) => u.ms)), thumb_bytes_max: Math.max(0, ...ok.map((u) => u.thumb!.bytes)), message_ids: ok.map((u) => u.messageId!) }
}

async function readLoop(clients: number, stop: () => boolean, once: () => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: clients }, async () => {
    while (!stop()) await once()
  }))
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()
