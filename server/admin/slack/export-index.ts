import type { ExportSource } from './export-source.ts'
import { MAX_JSON_BYTES } from './export-source.ts'
import type { ImportReport } from './report.ts'

// The export's lists (users.json, channels.json, groups.json, mpims.json, dms.json) read into
// what the import needs, every field checked for its type and length: an export is input like
// any other, and a hostile one names nothing we then trust.
export interface SlackPerson {
  id: string
  name: string
  email: string | null
  title: string | null
  deleted: boolean
  bot: boolean
  // A bot user's bot id, which its messages carry instead of a user id.
  botId: string | null
}

export type ConversationKind = 'channel' | 'group' | 'mpim' | 'dm'

export interface SlackConversation {
  id: string
  kind: ConversationKind
  name: string
  // The folder holding its days: a channel's or group's name, an mpim's name, a DM's id.
  folder: string
  creator: string | null
  members: string[]
  archived: boolean
}

export interface ExportIndex {
  people: SlackPerson[]
  conversations: SlackConversation[]
  // An integration's name by its bot, app or service id, from bots.json and integration_logs.json.
  integrations: Map<string, string>
}

const SLACK_ID = /^[A-Z0-9][A-Z0-9_-]{1,40}$/
export const NAME_LIMIT = 255
const LISTS: [string, ConversationKind][] = [['channels.json', 'channel'], ['groups.json', 'group'], ['mpims.json', 'mpim'], ['dms.json', 'dm']]

export class NotAnExport extends Error {}

export async function readExportIndex(source: ExportSource, root: string, report: ImportReport): Promise<ExportIndex> {
  if (!source.paths.has(`${root}users.json`) && !LISTS.some(([file]) => source.paths.has(`${root}${file}`))) {
    throw new NotAnExport('this is not a Slack export: it has no users.json, channels.json, groups.json, mpims.json or dms.json')
  }
  const people = (await readList(source, `${root}users.json`, report)).flatMap((raw) => person(raw, report))
  const conversations: SlackConversation[] = []
  for (const [file, kind] of LISTS) {
    for (const raw of await readList(source, `${root}${file}`, report)) conversations.push(...conversation(raw, kind, report))
  }
  return { people, conversations, integrations: await readIntegrations(source, root, report) }
}

// bots.json lists bots ({ id, app_id, name }); integration_logs.json lists each integration's
// installs ({ bot_id / app_id / service_id, service_type / app_type / name }).
async function readIntegrations(source: ExportSource, root: string, report: ImportReport): Promise<Map<string, string>> {
  const names = new Map<string, string>()
  const add = (id: unknown, name: string | null) => {
    if (name && typeof id === 'string' && SLACK_ID.test(id) && !names.has(id)) names.set(id, name)
  }
  for (const bot of await readList(source, `${root}bots.json`, report)) {
    const name = text(bot.name)
    add(bot.id, name)
    add(bot.app_id, name)
  }
  for (const entry of await readList(source, `${root}integration_logs.json`, report)) {
    const name = text(entry.service_name) ?? text(entry.app_name) ?? text(entry.name) ?? text(entry.service_type) ?? text(entry.app_type)
    for (const id of [entry.bot_id, entry.app_id, entry.service_id]) add(id, name)
  }
  return names
}

export async function readJson(source: ExportSource, path: string, report: ImportReport): Promise<unknown> {
  if (source.size(path) > MAX_JSON_BYTES) {
    report.refuse(`${path}: larger than ${MAX_JSON_BYTES / 1024 / 1024} MB`)
    return undefined
  }
  try {
    return JSON.parse(await source.readText(path))
  } catch (error) {
    report.refuse(`${path}: not JSON (${(error as Error).message.slice(0, 120)})`)
    return undefined
  }
}

async function readList(source: ExportSource, path: string, report: ImportReport): Promise<Record<string, unknown>[]> {
  if (!source.paths.has(path)) return []
  const list = await readJson(source, path, report)
  if (list === undefined) return []
  if (!Array.isArray(list)) {
    report.refuse(`${path}: not a list`)
    return []
  }
  return list.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null && !Array.isArray(item))
}

export const text = (value: unknown, limit = NAME_LIMIT): string | null => {
  if (typeof value !== 'string') return null
  const clean = value.replace(/[\u0000-\u001f\u007f]/g, ' ').trim()
  return clean === '' ? null : clean.slice(0, limit)
}

const object = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {})
const ids = (value: unknown): string[] => (Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string' && SLACK_ID.test(id)) : [])

function person(raw: Record<string, unknown>, report: ImportReport): SlackPerson[] {
  const id = typeof raw.id === 'string' && SLACK_ID.test(raw.id) ? raw.id : null
  if (!id) return report.refuse(`users.json: a person without a Slack id (${JSON.stringify(raw.id ?? null).slice(0, 40)})`), []
  const profile = object(raw.profile)
  const email = text(profile.email, 254)
  return [{
    id,
    name: text(profile.real_name) ?? text(raw.real_name) ?? text(profile.display_name) ?? text(raw.name) ?? id,
    email: email && /^[^\s@]+@[^\s@]+$/.test(email) ? email : null,
    title: text(profile.title, 1000),
    deleted: raw.deleted === true,
    bot: raw.is_bot === true || id === 'USLACKBOT',
    botId: typeof profile.bot_id === 'string' && SLACK_ID.test(profile.bot_id) ? profile.bot_id : null,
  }]
}

function conversation(raw: Record<string, unknown>, kind: ConversationKind, report: ImportReport): SlackConversation[] {
  const id = typeof raw.id === 'string' && SLACK_ID.test(raw.id) ? raw.id : null
  const name = text(raw.name, 80)
  const folder = kind === 'dm' ? id : name
  if (!id || !folder || folder.includes('/') || folder.includes('\\') || folder === '.' || folder === '..') {
    return report.refuse(`${kind}s: a conversation without a usable id or name (${JSON.stringify(raw.name ?? raw.id ?? null).slice(0, 40)})`), []
  }
  return [{ id, kind, name: name ?? id, folder, creator: typeof raw.creator === 'string' ? raw.creator : null, members: ids(raw.members), archived: raw.is_archived === true }]
}
