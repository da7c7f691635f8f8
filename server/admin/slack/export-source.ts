import { closeSync, constants, createReadStream, fstatSync, lstatSync, openSync, readdirSync, realpathSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { PassThrough, type Readable } from 'node:stream'
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

// A list (users.json, channels.json…) larger than this is not read into memory; day files are
// streamed, a message at a time, and may be larger.
export const MAX_JSON_BYTES = 256 * 1024 * 1024
export const MAX_DAY_BYTES = 4 * 1024 * 1024 * 1024
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

interface FolderFile {
  size: number
  dev: number
  ino: number
}

function openFolder(location: string): ExportSource {
  const root = realpathSync(location)
  const files = new Map<string, FolderFile>()
  const walk = (relative: string) => {
    for (const entry of readdirSync(join(root, relative), { withFileTypes: true })) {
      const path = relative ? `${relative}/${entry.name}` : entry.name
      if (entry.isSymbolicLink()) throw new UnsafeExport(`${path} is a link; an export holds only files and folders`)
      if (entry.isDirectory()) walk(path)
      else if (entry.isFile()) {
        const { size, dev, ino } = lstatSync(join(root, path))
        files.set(path, { size, dev, ino })
      }
      if (files.size > MAX_ENTRIES) throw new UnreadableExport(`the export holds more than ${MAX_ENTRIES} files`)
    }
  }
  walk('')
  const open = async (path: string) => createReadStream('', { fd: openChecked(root, path, files.get(path)) })
  return {
    paths: new Set(files.keys()),
    size: (path) => files.get(path)?.size ?? 0,
    readText: async (path) => streamText(await open(path)),
    open,
    close: () => {},
  }
}

// A file of the folder opened without following a link at its end (O_NOFOLLOW), then checked by
// its descriptor: still the very file the walk listed (same device and inode), so a link or a
// folder swapped in since (by whoever else can write there) is refused, not read.
function openChecked(root: string, path: string, listed: FolderFile | undefined): number {
  if (!listed) throw new UnreadableExport(`${path} is not in the export`)
  let fd: number
  try {
    fd = openSync(join(root, ...path.split('/')), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new UnsafeExport(`${path} became a link after the export was read`)
    throw new UnreadableExport(`${path} cannot be read (${(error as Error).message})`)
  }
  const stat = fstatSync(fd)
  if (!stat.isFile() || stat.dev !== listed.dev || stat.ino !== listed.ino) {
    closeSync(fd)
    throw new UnsafeExport(`${path} was replaced after the export was read (a link or another file)`)
  }
  return fd
}

async function streamText(stream: Readable): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
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
  const open = async (path: string) => guarded(path, await zip.openReadStreamPromise(entry(path)))
  return {
    paths: new Set(entries.keys()),
    size: (path) => entries.get(path)?.uncompressedSize ?? 0,
    readText: async (path) => streamText(await open(path)),
    open,
    close: () => zip.close(),
  }
}

// An entry's inflating stream, which yauzl stops as soon as it passes the size the entry
// declares (a zip bomb's 1 KB that inflates to 1 GB), with every error it emits caught and
// handed on once, as an UnsafeExport for a size that lies and an UnreadableExport otherwise.
function guarded(path: string, inflating: Readable): Readable {
  const out = new PassThrough()
  let failed = false
  inflating.on('error', (error: Error) => {
    if (failed) return
    failed = true
    inflating.unpipe(out)
    inflating.destroy()
    out.destroy(/too (many|few) bytes in the stream/.test(error.message)
      ? new UnsafeExport(`${path} in the zip does not hold the size its entry declares (${error.message}); the zip is damaged or hostile`)
      : new UnreadableExport(`${path} in the zip cannot be read (${error.message})`))
  })
  inflating.pipe(out)
  return out
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
