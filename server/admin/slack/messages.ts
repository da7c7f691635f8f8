import { randomUUID } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { escapeText } from '../../models/rich-text/serialize.ts'
import { dbTime } from '../../lib/time.ts'
import { BOOST_MAX_LENGTH } from '../../models/boost.ts'
import { VIDEO_POSTER } from '../../models/blob/variations.ts'
import type { ImportContext, ImportModels } from './context.ts'
import type { SlackConversation } from './export-index.ts'
import { authorOf } from './authors.ts'
import { dayMessages, type SlackMessage } from './day-files.ts'
import { emojiFor } from './emoji.ts'
import { findFile, prepareFile, removePrepared, slackFiles, type SlackFile } from './files.ts'
import { composeBody, type Composed } from './message-body.ts'
import { textStart } from './mrkdwn.ts'

// Slack's bookkeeping messages, which Campfire has no place for.
const SKIPPED_SUBTYPES = new Set([
  'channel_join', 'channel_leave', 'group_join', 'group_leave', 'channel_topic', 'channel_purpose', 'channel_name', 'group_topic',
  'group_purpose', 'group_name', 'channel_archive', 'channel_unarchive', 'group_archive', 'group_unarchive', 'pinned_item',
  'unpinned_item', 'tombstone', 'reminder_add', 'bot_add', 'bot_remove', 'channel_convert_to_private', 'channel_convert_to_public',
])
const TS = /^\d{9,11}\.\d{1,6}$/
const DAY_FILE = /^\d{4}-\d{2}-\d{2}\.json$/
// Writes awaited together: enough for the Writer's batches, few enough to bound what is held.
const IN_FLIGHT = 512
const RECENT_PARENTS = 10_000
type Threads = LRUCache<string, string>

interface Reaction {
  content: string
  boosters: number[]
}

// A conversation's days, oldest first, each message written with its Slack time, author,
// reactions (as boosts) and files (each an attachment message of its own, just after it).
export async function importMessages(context: ImportContext, conversation: SlackConversation): Promise<void> {
  const room = context.rooms.get(conversation.id)!
  const prefix = `${context.root}${conversation.folder}/`
  const days = context.filesIn(prefix).filter((path) => DAY_FILE.test(path.slice(prefix.length))).sort()
  // The starts of the latest messages, for replies' quotes; older parents are read back from the database.
  const threads: Threads = new LRUCache({ max: RECENT_PARENTS })
  let pending: Promise<unknown>[] = []
  // The first write that failed, kept until it can be thrown here (a write waits in `pending`
  // and must not fail unheard meanwhile).
  let failure: { error: unknown } | null = null
  const heard = (write: Promise<unknown>) => write.catch((error: unknown) => void (failure ??= { error }))
  for (const day of days) {
    let count = 0
    for await (const messages of dayMessages(context.source, day, context.report)) {
      for (const message of messages) {
        pending.push(...(await importMessage(context, conversation, room.id, message, threads)).map(heard))
        if (failure) throw (failure as { error: unknown }).error
        count++
        if (pending.length >= IN_FLIGHT) {
          await Promise.all(pending)
          pending = []
        }
      }
    }
    context.progress.advance(context.source.size(day), count)
  }
  await Promise.all(pending)
  if (failure) throw (failure as { error: unknown }).error
}

async function importMessage(context: ImportContext, conversation: SlackConversation, roomId: number, message: SlackMessage, threads: Threads): Promise<Promise<unknown>[]> {
  const { report } = context
  const subtype = typeof message.subtype === 'string' ? message.subtype : null
  if (message.type !== 'message') return report.skip('not a message'), []
  if (subtype && SKIPPED_SUBTYPES.has(subtype)) return report.skip(`Slack ${subtype.replaceAll('_', ' ')}`), []
  const ts = typeof message.ts === 'string' && TS.test(message.ts) ? message.ts : null
  if (!ts) return report.skip('message without a valid ts'), []
  const key = `${conversation.id}:${ts}`
  const raw = typeof message.text === 'string' ? message.text : ''
  const parent = typeof message.thread_ts === 'string' && message.thread_ts !== ts ? message.thread_ts : null
  const authorId = await authorOf(context, message)
  if (authorId === null) return report.skip('message without an author'), []
  if (context.banned.has(authorId)) return report.skip('message by a person banned here'), []
  const files = slackFiles(message.files ?? (subtype === 'file_share' ? [message.file] : undefined))
  const present = files.map((file) => [file, findFile(context, conversation.folder, file)] as const)
  const createdAt = micros(ts)
  const reactions = boostsFrom(context, message.reactions)
  const writes: Promise<unknown>[] = []
  // A message's reactions are written with the first of its parts to be written (its text, or
  // else its first file), in that part's transaction: a part an earlier run wrote means they are in.
  const earlier = [key, ...files.map((file) => `${key}:${file.id}`)].some((part) => context.read((m) => m.slackRecords.find('message', part)) !== undefined)

  // The text (with notes for the files the export lacks), unless an earlier run wrote it; the
  // files are looked at either way, since a run can stop between a message and its files.
  let body: Composed | null = null
  if (context.read((m) => m.slackRecords.find('message', key)) !== undefined) report.count('messages already imported')
  else {
    const missing = present.filter(([, path]) => path === null).map(([file]) => file)
    report.count('files missing', missing.length)
    body = composeBody(context, message, missing, parent ? quoteOf(context, conversation.id, parent, threads) : '')
    if (body) writes.push(writeMessage(context, roomId, authorId, key, createdAt, body, reactions))
    else if (files.length === 0) report.count('nothing to import')
  }
  if (!parent) threads.set(ts, `${context.names.get(authorId) ?? ''}\u0000${body ? textStart(body.plainText) : textStart(raw)}`)
  let offset = 1
  let carried = earlier || body !== null
  for (const [file, path] of present) {
    if (!path) continue
    writes.push(writeFileMessage(context, roomId, authorId, `${key}:${file.id}`, createdAt + offset++, path, file, carried ? [] : reactions))
    carried = true
  }
  return writes
}

// A thread reply opens with the start of the message it answers, since Campfire has no threads.
function quoteOf(context: ImportContext, conversationId: string, parentTs: string, threads: Threads): string {
  let seen = threads.get(parentTs)
  if (seen === undefined) {
    const parentId = context.read((m) => m.slackRecords.find('message', `${conversationId}:${parentTs}`))
    const row = parentId === undefined ? undefined : context.read((m) => m.messages.find(parentId))
    if (row) seen = `${context.names.get(row.creator_id) ?? ''}\u0000${textStart(context.read((m) => m.slackRecords.searchText(row.id)) ?? '')}`
  }
  if (seen === undefined) return '<blockquote>↪ In a thread</blockquote>'
  const [name, start] = seen.split('\u0000')
  return `<blockquote>↪ ${escapeText(name ? `${name}: ` : '')}${escapeText(start ?? '')}</blockquote>`
}

function boostsFrom(context: ImportContext, value: unknown): Reaction[] {
  if (!Array.isArray(value)) return []
  return value.flatMap((raw): Reaction[] => {
    if (typeof raw !== 'object' || raw === null) return []
    const reaction = raw as Record<string, unknown>
    const name = typeof reaction.name === 'string' ? reaction.name.slice(0, 100) : null
    if (!name) return []
    const content = [...(emojiFor(name) ?? `:${name}:`)].slice(0, BOOST_MAX_LENGTH).join('')
    const users = Array.isArray(reaction.users) ? reaction.users : []
    const boosters = [...new Set(users.flatMap((id) => (typeof id === 'string' ? (context.people.get(id) ?? []) : [])))]
    return boosters.length > 0 ? [{ content, boosters }] : []
  })
}

// Slack's ts is seconds with microseconds: the message's created_at, to the microsecond.
function micros(ts: string): number {
  const [seconds, fraction = ''] = ts.split('.')
  return Number(seconds) * 1_000_000 + Number(fraction.padEnd(6, '0'))
}

function writeMessage(context: ImportContext, roomId: number, creatorId: number, key: string, at: number, body: Composed, reactions: Reaction[]): Promise<unknown> {
  const createdAt = dbTime(at)
  return context.write((m) => {
    if (m.slackRecords.find('message', key) !== undefined) return false
    const row = m.messages.create({ roomId, creatorId, clientMessageId: randomUUID(), body: body.html, plainText: body.plainText, createdAt })
    m.slackRecords.record('message', key, row.id)
    addBoosts(m, row.id, reactions, createdAt)
    return true
  }, true).then((created) => counted(context, created, reactions))
}

async function writeFileMessage(context: ImportContext, roomId: number, creatorId: number, key: string, at: number, path: string, file: SlackFile, reactions: Reaction[]): Promise<unknown> {
  if (context.read((m) => m.slackRecords.find('message', key)) !== undefined) return context.report.count('messages already imported')
  if (context.dryRun) return context.report.count('files'), counted(context, true, reactions)
  const prepared = await prepareFile(context, path, file)
  if (!prepared) return
  const createdAt = dbTime(at)
  const input = { roomId, creatorId, clientMessageId: randomUUID(), body: '', plainText: file.name, createdAt }
  const created = await context.write((m) => {
    if (m.slackRecords.find('message', key) !== undefined) return false
    const blobId = m.blobs.create(prepared.blob)
    if (prepared.preview) m.blobPreviews.recordWithVariant(blobId, prepared.preview.image, VIDEO_POSTER.digest, prepared.preview.poster)
    const row = m.messages.create(input)
    m.blobs.attach('attachment', 'Message', row.id, blobId)
    if (prepared.thumb) {
      const { path: _path, ...thumb } = prepared.thumb.file
      m.blobVariants.record(blobId, prepared.thumb.variation.digest, thumb)
    }
    m.slackRecords.record('message', key, row.id)
    addBoosts(m, row.id, reactions, createdAt)
    return true
  }, true).catch(async (error: unknown) => {
    await removePrepared(prepared)
    throw error
  })
  if (!created) await removePrepared(prepared)
  else context.report.count('files')
  counted(context, created, reactions)
}

function addBoosts(m: ImportModels, messageId: number, reactions: Reaction[], at: string): void {
  for (const reaction of reactions) for (const booster of reaction.boosters) m.boosts.create(messageId, booster, reaction.content, at)
}

function counted(context: ImportContext, created: boolean, reactions: Reaction[]): void {
  if (!created) return context.report.count('messages already imported')
  context.report.count('messages')
  context.report.count('boosts', reactions.reduce((sum, reaction) => sum + reaction.boosters.length, 0))
}
