import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { extname, join, relative, sep } from 'node:path'
import { listFiles } from '../lib/files.ts'

export interface Asset {
  path: string
  contentType: string
  body: Buffer
  gzip?: Buffer
  brotli?: Buffer
  etag: string
}

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
}

// The built assets (server/build/assets.ts) are served as /assets/<dir>/<name>-<digest><ext>,
// read once at boot with their precompressed .gz and .br twins, so their URLs can be cached forever.
export class Assets {
  private readonly byLogical = new Map<string, Asset>()
  private readonly byPath = new Map<string, Asset>()

  constructor(dir: string) {
    for (const file of listFiles(dir)) this.add(dir, file)
  }

  private add(dir: string, file: string): void {
    const ext = extname(file)
    const contentType = TYPES[ext]
    if (!contentType) return
    const logical = relative(dir, file).split(sep).join('/')
    const body = readFileSync(file)
    const digest = createHash('sha256').update(body).digest('hex').slice(0, 12)
    const path = `/assets/${logical.slice(0, -ext.length)}-${digest}${ext}`
    const asset: Asset = { path, contentType, body, etag: `"${digest}"`, gzip: readIfThere(`${file}.gz`), brotli: readIfThere(`${file}.br`) }
    this.byLogical.set(logical, asset)
    this.byPath.set(path, asset)
  }

  path(logical: string): string {
    const asset = this.byLogical.get(logical)
    if (!asset) throw new Error(`unknown asset ${logical}`)
    return asset.path
  }

  // The undigested file, for the few URLs that must stay put (the service worker).
  file(logical: string): Asset | undefined {
    return this.byLogical.get(logical)
  }

  find(path: string): Asset | undefined {
    return this.byPath.get(path)
  }

  stylesheets(): string[] {
    return [...this.byLogical.entries()].filter(([name]) => name.endsWith('.css')).map(([, asset]) => asset.path)
  }
}

function readIfThere(file: string): Buffer | undefined {
  return existsSync(file) ? readFileSync(file) : undefined
}

