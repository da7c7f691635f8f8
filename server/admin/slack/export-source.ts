import { createReadStream, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import yauzl from 'yauzl'

// A Slack export as the importer reads it, from its folder or straight from its zip (nothing is
// extracted): the files it holds, by their path inside the export, each read on demand. Paths
// that would lead outside the export (a zip's "../" or absolute names, a folder's links) refuse
// the whole export before anything is read, and nothing of it is ever written to disk by path.
export interface ExportSource {
  readonly paths: ReadonlySet<string>
  size(path: string): number
  readText(path: string): Promise<string>
  open(path: string): Promise<Readable>
  close(): void
}

export class UnsafeExport extends Error {}
export class UnreadableExport extends Error {}

// A day's file larger than this is not read into memory (it would be a day of ~1M messages).
export const MAX_JSON_BYTES = 256 * 1024 * 1024
const MAX_ENTRIES = 2_000_000

export async function openExport(location: string): Promise<ExportSource> {
  let stat
  try {
    stat = statSync(location)
  } catch {
    throw new UnreadableExport(`${location} does not exist`)
  }
  return stat.isDirectory() ? openFolder(location) : openZip(location)
}

function openFolder(location: string): ExportSource {
  const root = realpathSync(location)
  const sizes = new Map<string, number>()
  const walk = (relative: string) => {
    for (const entry of readdirSync(join(root, relative), { withFileTypes: true })) {
      const path = relative ? `${relative}/${entry.name}` : entry.name
      if (entry.isSymbolicLink()) throw new UnsafeExport(`${path} is a link; an export holds only files and folders`)
      if (entry.isDirectory()) walk(path)
      else if (entry.isFile()) sizes.set(path, lstatSync(join(root, path)).size)
      if (sizes.size > MAX_ENTRIES) throw new UnreadableExport(`the export holds more than ${MAX_ENTRIES} files`)
    }
  }
  walk('')
  const within = (path: string) => {
    if (!sizes.has(path)) throw new UnreadableExport(`${path} is not in the export`)
    return join(root, ...path.split('/'))
  }
  return {
    paths: new Set(sizes.keys()),
    size: (path) => sizes.get(path) ?? 0,
    readText: (path) => readFile(within(path), 'utf8'),
    open: async (path) => createReadStream(within(path)),
    close: () => {},
  }
}

async function openZip(location: string): Promise<ExportSource> {
  let zip: yauzl.ZipFile
  try {
    zip = await yauzl.openPromise(location, { lazyEntries: true, autoClose: false, strictFileNames: true })
  } catch (error) {
    throw new UnreadableExport(`${location} is neither a folder nor a zip file that can be read (${(error as Error).message})`)
  }
  const entries = new Map<string, yauzl.Entry>()
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        if (!entry.fileName.endsWith('/')) entries.set(entry.fileName, entry)
        if (entries.size > MAX_ENTRIES) return reject(new UnreadableExport(`the export holds more than ${MAX_ENTRIES} files`))
        zip.readEntry()
      })
      zip.on('end', resolve)
      zip.on('error', (error: Error) => reject(/invalid (relative path|characters in fileName)|absolute path/i.test(error.message) ? new UnsafeExport(`the zip names a file outside the export (${error.message}); nothing was read from it`) : new UnreadableExport(error.message)))
      zip.readEntry()
    })
  } catch (error) {
    zip.close()
    throw error
  }
  const entry = (path: string) => {
    const found = entries.get(path)
    if (!found) throw new UnreadableExport(`${path} is not in the export`)
    return found
  }
  const open = (path: string) => zip.openReadStreamPromise(entry(path))
  return {
    paths: new Set(entries.keys()),
    size: (path) => entries.get(path)?.uncompressedSize ?? 0,
    async readText(path) {
      const chunks: Buffer[] = []
      for await (const chunk of await open(path)) chunks.push(chunk as Buffer)
      return Buffer.concat(chunks).toString('utf8')
    },
    open,
    close: () => zip.close(),
  }
}

// Where the export's own files start: its root, or the one folder a zip made of the export's
// folder wraps them in.
export function exportRoot(source: ExportSource): string {
  if (source.paths.has('users.json') || source.paths.has('channels.json')) return ''
  const tops = new Set([...source.paths].map((path) => path.split('/')[0]))
  if (tops.size === 1) {
    const [top] = tops
    if (source.paths.has(`${top}/users.json`) || source.paths.has(`${top}/channels.json`)) return `${top}/`
  }
  return ''
}

// The export's files by the folder that holds them ("a/b/c.json" under "a/b/"), built once: an
// export of many channels and days holds hundreds of thousands of files.
export function filesByFolder(source: ExportSource): (folder: string) => readonly string[] {
  const index = new Map<string, string[]>()
  for (const path of source.paths) {
    const folder = path.slice(0, path.lastIndexOf('/') + 1)
    const list = index.get(folder)
    if (list) list.push(path)
    else index.set(folder, [path])
  }
  return (folder) => index.get(folder) ?? []
}
