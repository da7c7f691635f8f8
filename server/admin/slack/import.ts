import { Writer } from '../../lib/writer.ts'
import type { Connection } from '../../models/database.ts'
import { createModels } from '../../models/index.ts'
import { slackRecords } from '../../models/imports/slack-records.ts'
import type { ImportContext, ImportModels } from './context.ts'
import { importConversations } from './conversations.ts'
import { readExportIndex } from './export-index.ts'
import { filesByFolder } from './export-source.ts'
import { importMessages } from './messages.ts'
import { importPeople } from './people.ts'

export type ImportSettings = Omit<ImportContext, 'read' | 'write' | 'people' | 'names' | 'rooms' | 'filesIn' | 'integrations' | 'banned'>

const withRecords = (db: Connection): ImportModels => Object.assign(createModels(db), { slackRecords: slackRecords(db) })

// A whole import: the people, then the rooms, then each conversation's messages. Reads go
// through a read-only connection and writes through a Writer on a connection of the import's
// own, which groups them into short transactions (at most `batch` writes each) and, as the
// server's does, waits its turn when the server holds the write lock. The server's caches stay
// right because its triggers see these writes as they see its own.
export async function importSlack(settings: ImportSettings, databases: { reader: Connection; writer: Connection | null }, batch = 200): Promise<void> {
  const readModels = withRecords(databases.reader)
  const readTransaction = databases.reader.transaction(<T>(fn: (m: ImportModels) => T): T => fn(readModels))
  const writer = databases.writer && new Writer(databases.writer, withRecords(databases.writer), { maxBatch: batch })
  const context: ImportContext = {
    ...settings,
    filesIn: filesByFolder(settings.source),
    read: (fn) => readTransaction.deferred(fn) as never,
    write: (fn, placeholder) => (writer ? writer.write(fn) : Promise.resolve(placeholder)),
    integrations: new Map(),
    people: new Map(),
    names: new Map(),
    banned: new Set(),
    rooms: new Map(),
  }
  try {
    const index = await readExportIndex(context.source, context.root, context.report)
    for (const [id, name] of index.integrations) context.integrations.set(id, name)
    await importPeople(context, index.people)
    const conversations = await importConversations(context, index.conversations)
    const days = conversations.flatMap((conversation) => context.filesIn(`${context.root}${conversation.folder}/`).filter((path) => path.endsWith('.json')))
    const bytes = days.reduce((sum, path) => sum + context.source.size(path), 0)
    context.progress.start(conversations.length, bytes)
    for (const [index, conversation] of conversations.entries()) {
      context.progress.conversation(index + 1, conversation.kind === 'dm' ? 'a DM' : `#${conversation.name}`)
      await importMessages(context, conversation)
    }
  } finally {
    context.progress.stop()
    writer?.close()
  }
}
