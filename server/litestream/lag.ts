import { readdir, readFile, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { parsePrometheusText, type TextSample } from '../lib/prometheus-text.ts'

// What a running Litestream tells about itself (server/litestream/sidecar.ts).
export interface LitestreamReadout {
  // http://127.0.0.1:<port>/metrics, its own metrics (`addr:`), while it runs; null between runs.
  readonly metricsUrl: string | null
  // When it last wrote a WAL segment to the replica, or when it was last started (ms).
  readonly shippedAt: number
}

export interface Lag {
  // Bytes Litestream has copied from the WAL into its shadow WAL and not yet written to the
  // replica; null until it has written to the replica once (since it was started).
  bytes: number | null
  // 0 when those bytes are 0; otherwise seconds since it last wrote to the replica.
  seconds: number | null
}

export const READ_TIMEOUT_MS = 500
const MOST_BYTES = 1024 * 1024

// Litestream 0.3's metrics give the replica's position (`litestream_replica_wal_index`, the
// shadow WAL file it is in, and `litestream_replica_wal_offset`, how far into it), but of its
// shadow WAL only the highest index and the total size of the files it keeps
// (`litestream_shadow_wal_size`, which counts a file before the replica's too). So the files are
// measured where Litestream keeps them, beside the database: .<name>-litestream/generation names
// the current generation, generations/<generation>/wal/<index as 8 hex digits>.wal its files.
// What is behind is the rest of the replica's file and every later one. Throws when Litestream
// does not answer within READ_TIMEOUT_MS, or answers with something else than its metrics.
export async function readLag(litestream: LitestreamReadout, databasePath: string, now = Date.now()): Promise<Lag> {
  if (litestream.metricsUrl === null) throw new Error('Litestream is not running')
  const samples = await fetchSamples(litestream.metricsUrl)
  const path = resolve(databasePath)
  const position = (name: string) => samples.find((sample) => sample.name === name && sample.labels.db === path)?.value
  const index = position('litestream_replica_wal_index')
  const offset = position('litestream_replica_wal_offset')
  if (!samples.some((sample) => sample.name === 'litestream_db_size' && sample.labels.db === path)) throw new Error(`Litestream does not replicate ${path}`)
  if (index === undefined || offset === undefined) return { bytes: null, seconds: null }
  const bytes = Math.max(0, (await shadowBytesFrom(path, index)) - offset)
  return { bytes, seconds: bytes === 0 ? 0 : Math.max(0, (now - litestream.shippedAt) / 1000) }
}

async function fetchSamples(url: string): Promise<TextSample[]> {
  const response = await fetch(url, { signal: AbortSignal.timeout(READ_TIMEOUT_MS), redirect: 'error' })
  if (!response.ok) throw new Error(`Litestream answered ${response.status}`)
  if (Number(response.headers.get('content-length') ?? 0) > MOST_BYTES) throw new Error('Litestream answered too much')
  const text = await response.text()
  if (text.length > MOST_BYTES) throw new Error('Litestream answered too much')
  return parsePrometheusText(text)
}

// The sizes of the current generation's shadow WAL files from `index` on.
async function shadowBytesFrom(databasePath: string, index: number): Promise<number> {
  const folder = join(dirname(databasePath), `.${basename(databasePath)}-litestream`)
  const generation = (await readFile(join(folder, 'generation'), 'utf8')).trim()
  if (!/^[0-9a-f]{16}$/.test(generation)) throw new Error('Litestream names no generation')
  const walFolder = join(folder, 'generations', generation, 'wal')
  const files = (await readdir(walFolder)).filter((name) => /^[0-9a-f]{8}\.wal$/.test(name) && parseInt(name, 16) >= index)
  const sizes = await Promise.all(files.map((name) => stat(join(walFolder, name)).then((found) => found.size, () => 0)))
  return sizes.reduce((total, size) => total + size, 0)
}
