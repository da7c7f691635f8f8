import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { basename, extname, join } from 'node:path'
import { gzipSync } from 'node:zlib'

export interface Asset {
  path: string
  contentType: string
  body: Buffer
  gzip: Buffer
  etag: string
}

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.mp3': 'audio/mpeg',
}

// Files under public/ are served as /assets/<name>-<digest><ext>, read and compressed once at
// boot, so their URLs can be cached forever.
export class Assets {
  private readonly byLogical = new Map<string, Asset>()
  private readonly byPath = new Map<string, Asset>()

  constructor(dirs: string[]) {
    for (const dir of dirs) this.load(dir)
  }

  private load(dir: string): void {
    let files: string[]
    try {
      files = readdirSync(dir)
    } catch {
      return
    }
    for (const file of files) {
      const ext = extname(file)
      const contentType = TYPES[ext]
      if (!contentType) continue
      const body = readFileSync(join(dir, file))
      const digest = createHash('sha256').update(body).digest('hex').slice(0, 12)
      const path = `/assets/${basename(file, ext)}-${digest}${ext}`
      const asset = { path, contentType, body, gzip: gzipSync(body, { level: 9 }), etag: `"${digest}"` }
      this.byLogical.set(file, asset)
      this.byPath.set(path, asset)
    }
  }

  path(logical: string): string {
    const asset = this.byLogical.get(logical)
    if (!asset) throw new Error(`unknown asset ${logical}`)
    return asset.path
  }

  find(path: string): Asset | undefined {
    return this.byPath.get(path)
  }

  stylesheets(): string[] {
    return [...this.byLogical.entries()].filter(([name]) => name.endsWith('.css')).map(([, asset]) => asset.path)
  }
}
