import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import sharp from 'sharp'
import yazl from 'yazl'

// A Slack workspace export, written by the test in the layout Slack documents: users.json,
// channels.json, groups.json, dms.json, mpims.json, one folder of daily JSON files per
// conversation (channels and private channels by name, DMs by id), and the files it includes
// under __uploads/<file id>/<name>. Made here, from nothing copied.
export type SlackMessage = Record<string, unknown> & { ts: string }
export type ExportFiles = Map<string, string | Buffer>

export const TEAM = {
  jz: 'U0JZ', ada: 'U0ADA', gone: 'U0GONE', botUser: 'U0DEPLOY', bot: 'B0DEPLOY', outsider: 'U0OUT',
  general: 'C0GENERAL', talk: 'C0TALK', announcements: 'C0NEWS', secret: 'G0SECRET', dm: 'D0JZADA', mpim: 'G0MPIM',
}

// Slack's ts: seconds since the epoch, with microseconds.
export const tsAt = (iso: string, micros = 0): string => `${Math.floor(Date.parse(iso) / 1000)}.${String(micros).padStart(6, '0')}`

export function users(): unknown[] {
  return [
    { id: TEAM.jz, name: 'jz', real_name: 'Jason Zimdars', profile: { real_name: 'Jason Zimdars', email: 'JZ@37Signals.com', title: 'Designer' } },
    { id: TEAM.ada, name: 'ada', profile: { real_name: 'Ada Import', email: 'ada@example.org', title: 'Analyst of engines' } },
    { id: TEAM.gone, name: 'gone', deleted: true, profile: { real_name: 'Gone Person', email: 'gone@example.org' } },
    { id: TEAM.botUser, name: 'deploybot', is_bot: true, profile: { real_name: 'Deploy Bot', bot_id: TEAM.bot } },
  ]
}

export async function samplePng(): Promise<Buffer> {
  return sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 80, b: 40 } } }).png().toBuffer()
}

// The export every import test reads: each kind of conversation, a thread, an edit, reactions,
// mentions, a file present and one missing, an archived channel, a deleted person, a bot, a
// person from another workspace, a broken day file and hostile content.
export async function sampleExport(): Promise<ExportFiles> {
  const day = '2024-01-15'
  const at = (minute: number) => tsAt(`${day}T09:${String(minute).padStart(2, '0')}:00Z`, 100 + minute)
  const files: ExportFiles = new Map()
  const json = (path: string, value: unknown) => files.set(path, JSON.stringify(value, null, 1))
  json('users.json', users())
  json('channels.json', [
    { id: TEAM.general, name: 'general', created: 1700000000, creator: TEAM.jz, members: [TEAM.jz, TEAM.ada], is_archived: false },
    { id: TEAM.talk, name: 'all talk', created: 1700000000, creator: TEAM.ada, members: [TEAM.ada], is_archived: false },
    { id: TEAM.announcements, name: 'announcements', created: 1700000000, creator: TEAM.jz, members: [TEAM.jz], is_archived: true },
  ])
  json('groups.json', [{ id: TEAM.secret, name: 'secret-plans', created: 1700000000, creator: TEAM.ada, members: [TEAM.jz, TEAM.ada] }])
  json('dms.json', [{ id: TEAM.dm, created: 1700000000, members: [TEAM.jz, TEAM.ada] }])
  json('mpims.json', [{ id: TEAM.mpim, name: 'mpdm-jz--ada--gone-1', created: 1700000000, creator: TEAM.jz, members: [TEAM.jz, TEAM.ada, TEAM.gone] }])
  json(`general/${day}.json`, [
    { type: 'message', user: TEAM.ada, ts: at(1), text: `Hello *team* <@${TEAM.jz}>, see <https://example.com/docs?a=1&amp;b=2|the docs> and <#${TEAM.announcements}|announcements> :tada:`, reactions: [{ name: '+1', users: [TEAM.jz, TEAM.ada], count: 2 }, { name: 'party-parrot', users: [TEAM.jz], count: 1 }] },
    { type: 'message', user: TEAM.jz, ts: at(2), text: 'Deploy plan for Friday: _carefully_', thread_ts: at(2), reply_count: 1 },
    { type: 'message', user: TEAM.ada, ts: at(3), text: 'Sounds good to me', thread_ts: at(2), parent_user_id: TEAM.jz },
    { type: 'message', user: TEAM.jz, ts: at(4), text: 'The final wording', edited: { user: TEAM.jz, ts: at(5) } },
    { type: 'message', subtype: 'channel_join', user: TEAM.gone, ts: at(6), text: `<@${TEAM.gone}> has joined the channel` },
    { type: 'message', user: TEAM.ada, ts: at(7), text: 'Here is the diagram', files: [{ id: 'F0DIAGRAM', name: 'diagram.png', title: 'diagram', mimetype: 'image/png' }] },
    { type: 'message', user: TEAM.jz, ts: at(8), text: '', files: [{ id: 'F0MISSING', name: 'budget.pdf', mimetype: 'application/pdf', url_private: 'https://files.slack.com/budget.pdf' }] },
    { type: 'message', subtype: 'bot_message', bot_id: TEAM.bot, username: 'Deploy Bot', ts: at(9), text: 'Build passed ~finally~' },
    { type: 'message', user: TEAM.outsider, user_profile: { real_name: 'Outside Person' }, ts: at(10), text: 'Hi from another workspace' },
    { type: 'message', user: TEAM.gone, ts: at(11), text: '• first point\n• second point\n&gt; a quote\n```const a = 1 &lt; 2```' },
  ])
  files.set(`general/2024-01-16.json`, '{[ this is not json')
  files.set('__uploads/F0DIAGRAM/diagram.png', await samplePng())
  files.set(`__avatars/${TEAM.ada}/ada.png`, await samplePng())
  json(`announcements/${day}.json`, [
    { type: 'message', user: TEAM.jz, ts: at(20), text: '<script>alert("export")</script> and <img src=x onerror=alert(1)> &lt;b&gt;bold?&lt;/b&gt; <javascript:alert(2)|click me>' },
    { type: 'message', user: TEAM.jz, ts: at(21), text: 'x'.repeat(150_000) },
  ])
  json(`all talk/${day}.json`, [{ type: 'message', user: TEAM.ada, ts: at(25), text: 'A channel whose name a room has' }])
  json(`secret-plans/${day}.json`, [{ type: 'message', user: TEAM.ada, ts: at(30), text: 'Only for the two of us' }])
  json(`${TEAM.dm}/${day}.json`, [{ type: 'message', user: TEAM.jz, ts: at(31), text: `A direct word, <@${TEAM.ada}>` }])
  json(`mpdm-jz--ada--gone-1/${day}.json`, [{ type: 'message', user: TEAM.gone, ts: at(32), text: 'Three of us' }])
  return files
}

export function writeExportFolder(folder: string, files: ExportFiles): string {
  for (const [path, content] of files) {
    mkdirSync(dirname(join(folder, path)), { recursive: true })
    writeFileSync(join(folder, path), content)
  }
  return folder
}

export function zipExport(files: ExportFiles): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const [path, content] of files) zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), path)
  zip.end()
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk))
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)))
    zip.outputStream.on('error', reject)
  })
}

// A zip whose entry climbs out of the export ("../…"): yazl will not write such a name, so the
// entry is added under a name of the same length and renamed in the archive's bytes.
export async function zipSlip(files: ExportFiles, escape = '../escaped.txt'): Promise<Buffer> {
  const stand = 'zz' + escape.slice(2)
  const zip = await zipExport(new Map([...files, [stand, 'written outside the export']]))
  const from = Buffer.from(stand)
  const to = Buffer.from(escape)
  for (let at = zip.indexOf(from); at !== -1; at = zip.indexOf(from, at + 1)) to.copy(zip, at)
  return zip
}

// Many days of one busy channel, for the resume and size tests.
export function busyExport(days: number, perDay: number): ExportFiles {
  const files: ExportFiles = new Map()
  files.set('users.json', JSON.stringify(users()))
  files.set('channels.json', JSON.stringify([{ id: 'C0BUSY', name: 'busy', created: 1700000000, creator: TEAM.jz, members: [TEAM.jz, TEAM.ada] }]))
  for (let d = 0; d < days; d++) {
    const date = new Date(Date.UTC(2023, 0, 1) + d * 86_400_000).toISOString().slice(0, 10)
    const messages = Array.from({ length: perDay }, (_, i) => ({
      type: 'message', user: i % 2 ? TEAM.jz : TEAM.ada, ts: tsAt(`${date}T08:00:00Z`, 0).replace(/\.\d+$/, '') + `.${String(i * 10).padStart(6, '0')}`, text: `Busy message ${d}-${i} about *things* number ${i}`,
    }))
    files.set(`busy/${date}.json`, JSON.stringify(messages))
  }
  return files
}

// A zip whose entry at `path` declares `declared` bytes but inflates to all of its content (a
// zip bomb's shape): the sizes in its local header and the central directory are rewritten.
export async function zipBomb(files: ExportFiles, path: string, declared: number): Promise<Buffer> {
  const zip = await zipExport(files)
  const name = Buffer.from(path)
  for (const [signature, nameAt, sizeAt] of [[0x04034b50, 30, 22], [0x02014b50, 46, 24]] as const) {
    for (let at = zip.indexOf(name); at !== -1; at = zip.indexOf(name, at + 1)) {
      const header = at - nameAt
      if (header >= 0 && zip.readUInt32LE(header) === signature) zip.writeUInt32LE(declared, header + sizeAt)
    }
  }
  return zip
}
