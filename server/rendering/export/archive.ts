import { stat } from 'node:fs/promises'
import { createReadStream } from 'node:fs'
import { Readable, type Writable } from 'node:stream'
import { finished } from 'node:stream/promises'
import type Yazl from 'yazl'
import { lazyPackage } from '../../lib/lazy-package.ts'
import { blobPath } from '../../lib/files.ts'
import type { Connection } from '../../models/database.ts'
import { exportRows, type ExportRoom, type ExportScope } from '../../models/export/rows.ts'
import { attachmentPath, personRecord, roomFileName, roomRecord } from './records.ts'
import { roomJson } from './room-json.ts'
import { roomHtml } from './room-html.ts'
import { readme } from './readme.ts'

const yazl = lazyPackage<typeof Yazl>('yazl')

export interface ArchiveSummary {
  rooms: number
  messages: number
  attachments: number
  // Attachments whose file was not on disk: listed in the JSON, left out of the zip.
  missingFiles: number
}

export interface ArchiveOptions {
  db: Connection
  scope: ExportScope
  filesPath: string
  signal?: AbortSignal
}

// Writes an export as a zip to `output`, streaming: one entry at a time, each read from its own
// statement as the zip takes it in (yazl pulls from a Readable over the row iterator), so memory
// stays flat however many messages there are. Everything is read in one transaction: the files
// agree with each other even while the server goes on writing.
export async function writeArchive(options: ArchiveOptions, output: Writable): Promise<ArchiveSummary> {
  const { db, scope } = options
  const rows = exportRows(db)
  const zip = new (yazl().ZipFile)()
  const summary: ArchiveSummary = { rooms: 0, messages: 0, attachments: 0, missingFiles: 0 }
  const exportedAt = new Date().toISOString()
  zip.outputStream.pipe(output)
  const written = finished(output)
  written.catch(() => {})

  function add(path: string, chunks: () => Iterable<string>): Promise<void> {
    return new Promise((resolve, reject) => {
      zip.addReadStreamLazy(path, { mtime: new Date(exportedAt) }, (callback) => {
        if (options.signal?.aborted) return reject(options.signal.reason)
        const stream = Readable.from(toBuffers(chunks(), options.signal), { objectMode: false, highWaterMark: 64 * 1024 })
        finished(stream).then(resolve, reject)
        callback(null, stream)
      })
    })
  }

  db.exec('BEGIN')
  try {
    await add('README.txt', () => [readme(scope, exportedAt)])
    await add('people.json', () => jsonLines(rows.people(scope), personRecord))
    const rooms = rows.rooms(scope)
    await add('rooms.json', () => jsonLines(rooms, (room) => roomRecord(room, scope.kind === 'person' ? [] : rows.memberIds(room.id))))
    for (const room of rooms) {
      const title = titleOf(room, () => rows.memberNames(room.id))
      await add(roomFileName(room, 'json'), () => roomJson(room, title, counted(rows.messages(scope, room.id), summary)))
      await add(roomFileName(room, 'html'), () => roomHtml(title, exportedAt, rows.messages(scope, room.id)))
      summary.rooms++
    }
    for (const attachment of rows.attachments(scope)) {
      options.signal?.throwIfAborted()
      const path = blobPath(options.filesPath, attachment.key)
      const size = path ? await stat(path).then((s) => (s.isFile() ? s.size : null), () => null) : null
      if (path === null || size === null) {
        summary.missingFiles++
        continue
      }
      await new Promise<void>((resolve, reject) => {
        zip.addReadStreamLazy(attachmentPath(attachment), { size, compress: false }, (callback) => {
          const stream = createReadStream(path)
          finished(stream).then(resolve, reject)
          callback(null, stream)
        })
      })
      summary.attachments++
    }
    db.exec('COMMIT')
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK')
    output.destroy(error as Error)
    throw error
  }
  zip.end()
  await written
  return summary
}

function titleOf(room: ExportRoom, memberNames: () => string[]): string {
  if (room.name) return room.name
  return room.type === 'Rooms::Direct' ? `Direct messages: ${memberNames().join(', ')}` : `Room ${room.id}`
}

function* jsonLines<T>(items: Iterable<T>, record: (item: T) => unknown): Generator<string> {
  yield '['
  let first = true
  for (const item of items) {
    yield `${first ? '\n' : ',\n'}${JSON.stringify(record(item))}`
    first = false
  }
  yield '\n]\n'
}

function* counted<T>(items: Iterable<T>, summary: ArchiveSummary): Generator<T> {
  for (const item of items) {
    summary.messages++
    yield item
  }
}

// Rows come as small strings; they go to the zip in chunks of about 64 KB, so the stream machinery
// runs once per chunk rather than once per message.
const CHUNK = 64 * 1024

function* toBuffers(chunks: Iterable<string>, signal: AbortSignal | undefined): Generator<Buffer> {
  let pending: string[] = []
  let size = 0
  for (const chunk of chunks) {
    pending.push(chunk)
    size += chunk.length
    if (size < CHUNK) continue
    signal?.throwIfAborted()
    yield Buffer.from(pending.join(''))
    pending = []
    size = 0
  }
  if (pending.length > 0) yield Buffer.from(pending.join(''))
}
