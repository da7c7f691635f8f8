import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { parse, type DefaultTreeAdapterMap } from 'parse5'
import { Store } from '../../../server/models/store.ts'
import { tempStorage } from '../../helper.ts'
import { DEFAULT_PASSWORD } from '../../load/seed.ts'
import { CookieJar, formPost, request, ROOT, startServer, stopServer } from '../../support/server-process.ts'
import { runAdmin } from '../support/admin-script.ts'
import { seededStorage } from '../support/seeded-storage.ts'
import { writeExportFolder } from '../support/slack-export.ts'
import { integrationsExport } from '../support/slack-integrations-export.ts'

type Node = DefaultTreeAdapterMap['node']
type Element = DefaultTreeAdapterMap['element']

const attribute = (node: Element, name: string) => node.attrs.find((attr) => attr.name === name)?.value
const children = (node: Node): Node[] => ('childNodes' in node ? node.childNodes : [])
function* elements(node: Node): Generator<Element> {
  for (const child of children(node)) {
    if ('tagName' in child) yield child
    yield* elements(child)
  }
}
function textOf(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterMap['textNode']).value
  const own = 'tagName' in node && /^(p|li|blockquote|pre|h3|hr|br|ul|ol)$/.test(node.tagName) ? ' ' : ''
  return own + children(node).map(textOf).join('') + own
}

// Each message of a room page as a person sees it: its author and its body's text.
function messagesOn(html: string): { author: string; text: string; html: string }[] {
  return [...elements(parse(html))].filter((node) => node.tagName === 'div' && attribute(node, 'data-message-id') !== undefined).map((message) => {
    const author = [...elements(message)].find((node) => node.tagName === 'strong' && attribute(node, 'data-reply-target') === 'author')!
    const body = [...elements(message)].find((node) => (attribute(node, 'id') ?? '').startsWith('presentation_message_'))!
    return { author: textOf(author).trim(), text: textOf(body).replace(/\s+/g, ' ').trim(), html: children(body).map((node) => ('tagName' in node ? serialize(node) : '')).join('') }
  })
}
const serialize = (node: Element): string => `<${node.tagName}${node.attrs.map((attr) => ` ${attr.name}="${attr.value}"`).join('')}>${children(node).map((child) => ('tagName' in child ? serialize(child) : child.nodeName === '#text' ? (child as DefaultTreeAdapterMap['textNode']).value : '')).join('')}</${node.tagName}>`

test('an old integration-heavy export keeps every message, and each reads in the room page as Slack showed it', { timeout: 180_000 }, async (t) => {
  const { storage, labels } = seededStorage(t)
  const store = new Store({ path: join(storage, 'db', 'production.sqlite3'), migrationsDir: join(ROOT, 'migrations') })
  store.writeNow((m) => m.deactivatable.deactivate(labels.users.kevin))
  store.close()
  const folder = writeExportFolder(join(tempStorage(t), 'export'), integrationsExport())
  const result = await runAdmin('import-slack', ['--from', folder], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(result.code, 0, result.stderr)

  const db = new BetterSqlite3(join(storage, 'db', 'production.sqlite3'), { readonly: true })
  t.after(() => db.close())
  const room = (name: string) => db.prepare('SELECT id FROM rooms WHERE name = ?').pluck().get(name) as number
  const server = await startServer({ CAMPFIRE_STORAGE_PATH: storage, DISABLE_SSL: 'true' })
  t.after(() => stopServer(server, 'SIGKILL'))
  const jar = new CookieJar()
  assert.equal((await request(server.baseUrl, jar, '/session', formPost({ email_address: labels.emails.jz!, password: DEFAULT_PASSWORD }))).status, 302)
  const page = async (id: number) => messagesOn(await (await request(server.baseUrl, jar, `/rooms/${id}`)).text())

  const engineering = await page(room('engineering'))
  assert.deepEqual(engineering.map(({ author, text }) => [author, text]), [
    ['github', '[campfire] Pull request submitted by ann ann · Ann Example #12 Stream day files Reads each day as a stream; see the diff & tell me Reviewers: Ben Sample Status: open Image: chart.png Review GitHub · 2016-03-01 10:00 UTC'],
    ['github', 'Pull request closed by ben'],
    ['Jira', 'CAMP-7 Import bots by name was resolved'],
    ['Circle CI', 'Build #7 Build #7 *passed* in 42s'],
    ['Deploy Robot', 'Deploy 🚀 v2.3 Production is on v2.3 By ben Took 3 minutes Image: green badge ben Deployed from main Image: Latency after deploy Open the log'],
    ['Ann Example', 'Plan: bold italic gone code(), see the plan, Ben Sample in #deploys 👋🏼 @backend @here first second nested one quoted words const a = 1 < 2 https://x.example'],
    ['Ben Sample', 'a file that was not in the export: spec.pdf'],
    ['Ben Sample', 'Here is the plan a file that was not in the export: plan.pdf'],
    ['Cat Placeholder', 'On the file spec.pdf: Looks right to me'],
    ['Cat Placeholder', 'Notes from today a file that was not in the export: notes.txt'],
    ['Ann Example', 'https://news.example/article Example News Streams, explained How parsers read a file a piece at a time. Image: thumb.png'],
    ['Slackbot', 'Reminder: standup.'],
    ['Slack integration B1HOOK', 'An unnamed webhook says hi'],
    ['Kevin McConnell', 'Kevin wrote this on Slack'],
  ])
  const [pullRequest, , , build, deploy, plan] = engineering.map((message) => message.html)
  assert.match(pullRequest!, /<p>\[campfire\] Pull request submitted by <a href="https:\/\/github\.example\/ann">ann<\/a><\/p><blockquote>/, 'the pretext sits above the attachment, which reads as a quote')
  assert.match(pullRequest!, /<strong><a href="https:\/\/github\.example\/acme\/campfire\/pull\/12">#12 Stream day files<\/a><\/strong>/, 'the title links where title_link says')
  assert.match(pullRequest!, /<ul><li><strong>Reviewers<\/strong>: <span class="mention"[^>]*data-user-id="\d+"/, 'fields are a small list, and a person in one is a mention')
  assert.match(pullRequest!, /<time datetime="2016-03-01T10:00:00\.000Z">/, 'the footer keeps the attachment\'s time')
  assert.doesNotMatch(pullRequest!, /Ignore|Pull request submitted: #12/, 'a button without a link, and the fallback of an attachment that shows more, are left out')
  assert.doesNotMatch(build!, /<strong>passed/, 'an attachment whose mrkdwn_in leaves out its text is not formatted, as in Slack')
  assert.match(deploy!, /<h6>Deploy 🚀 v2\.3<\/h6>.*<hr>/s)
  assert.match(plan!, /<ul><li>first<\/li><li>second<ul><li>nested<\/li><\/ul><\/li><\/ul><ol><li>one<\/li><\/ol><blockquote>quoted <strong>words<\/strong><\/blockquote><pre>/, 'an indented list nests in the item above it')
  assert.doesNotMatch(plan!, /fallback|\*bold\*/, 'the blocks are shown instead of the text Slack kept beside them')

  // One bot for each integration, named as Slack showed it; the reinstalled one is still one.
  const bots = db.prepare("SELECT name FROM users WHERE role = 2 AND id IN (SELECT record_id FROM slack_import_records WHERE kind = 'user') ORDER BY name").pluck().all()
  assert.deepEqual(bots, ['Circle CI', 'Deploy Robot', 'Jira', 'Slack integration B1HOOK', 'Slackbot', 'github'])
  const deploys = await page(room('deploys'))
  assert.deepEqual(deploys.map(({ author, text }) => [author, text]), [['Circle CI', 'Deploy finished']], 'the integration that posts under its own username is the same bot')

  // Nobody had an email; a deactivated or banned person's email does not make a new member.
  assert.equal(db.prepare("SELECT count(*) FROM users WHERE name IN ('Ann Example', 'Ben Sample', 'Cat Placeholder') AND email_address IS NULL AND status = 0").pluck().get(), 3)
  assert.equal(db.prepare("SELECT count(*) FROM users WHERE name IN ('Kevin Again', 'Mallory Again') OR email_address IN ('kevin@37signals.com', 'mallory@example.com') AND status = 0").pluck().get(), 0)
  assert.deepEqual(db.prepare('SELECT status FROM users WHERE id IN (?, ?) ORDER BY id').pluck().all(labels.users.kevin, labels.users.mallory), [1, 2], 'they stay as they were')
  assert.match(result.stdout, /people matched by email, deactivated or banned \(left so\)\s+2\n/)
  assert.match(result.stdout, /skipped: message by a person banned here\s+1\n/)

  assert.match(result.stdout, /messages imported\s+15\n/)
  assert.match(result.stdout, /files not in the export\s+3\n/)
  assert.match(result.stdout, /messages with nothing that could be imported\s+0\n/)
  assert.match(result.stdout, /bots created\s+6\n/)
  assert.doesNotMatch(result.stdout, /without an author|no text/)
})
