import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { FileSystemConfigLoader, HtmlValidate, type Message } from 'html-validate'
import { startCampfire, PASSWORD, type Campfire } from '../browser/support/campfire.ts'
import { CookieJar, formPost, request, ROOT } from '../support/server-process.ts'
import { CableClient, openSocket, type CableApp } from '../cable/cable-helper.ts'

const OLD_CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36'
const TURBO_STREAM = 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml'

// Findings we keep for now, each with the reason; anything else fails.
const ACCEPTED: { rule: string; markup: RegExp; reason: string }[] = [
  {
    rule: 'wcag/h32',
    markup: /<form (class="account-setting |action="\/account" accept-charset="UTF-8" method="post" enctype="multipart|action="\/account\/users\/\d+"|action="\/users\/me\/profile" method="post" enctype="multipart)/,
    reason: 'forms that submit when their one control changes (the account logo and an avatar picked from a file, the "must be admin" switch, a person’s role): the change is the submission, made with Space or a file dialog, and a submit button would be a second, useless Tab stop',
  },
]

// The HTML the server sends, checked by html-validate under the rules in .htmlvalidate.mjs:
// every page a person opens, every fragment a page fetches (frames, history pages, streams) and
// every push the cable sends when someone posts, boosts, edits or deletes. Pages are fetched from
// a real server on the development dataset, as a browser would, signed in as David (an
// administrator) or Kevin (a member), or signed out.
describe('the server’s HTML is valid', () => {
  const cleanups: (() => Promise<void> | void)[] = []
  let campfire: Campfire
  const validator = new HtmlValidate(new FileSystemConfigLoader())
  const checked: string[] = []
  const problems: string[] = []
  const jars: Record<string, CookieJar> = {}

  // Validates a whole document, or a fragment (a frame, a stream's template) in a body context.
  async function validate(name: string, html: string): Promise<void> {
    checked.push(name)
    const report = await validator.validateString(html, join(ROOT, 'views', 'checked.html'))
    for (const message of report.results.flatMap((result) => result.messages)) {
      const line = html.split('\n')[message.line - 1] ?? ''
      const around = line.slice(Math.max(0, message.column - 200), message.column + 200)
      if (!ACCEPTED.some((accepted) => accepted.rule === message.ruleId && accepted.markup.test(around))) problems.push(explain(name, html, message))
    }
  }

  // Fetches a path as someone (or nobody) and validates what comes back: a page, a fragment,
  // or each template of a Turbo Stream.
  async function check(who: string | null, path: string, options: { accept?: string; headers?: Record<string, string>; status?: number } = {}): Promise<string> {
    const headers: Record<string, string> = { accept: options.accept ?? 'text/html', ...options.headers }
    const response = await request(campfire.baseUrl, who ? jars[who]! : new CookieJar(), path, { headers }).catch((error: Error) => {
      throw new Error(`GET ${path}: ${error.message} (${String((error.cause as Error | undefined)?.message)})`)
    })
    const body = await response.text()
    assert.equal(response.status, options.status ?? 200, `${path} as ${who}: ${body.slice(0, 200)}`)
    const name = `${path}${who ? ` as ${who}` : ''}`
    if (String(response.headers.get('content-type')).startsWith('text/vnd.turbo-stream.html')) await validateStreams(name, body)
    else await validate(name, body)
    return body
  }

  async function validateStreams(name: string, body: string): Promise<void> {
    const templates = [...body.matchAll(/<turbo-stream action="(\w+)" target="([^"]*)"><template>([\s\S]*?)<\/template><\/turbo-stream>/g)]
    for (const [, action, target, html] of templates) await validate(`${name}, ${action} ${target}`, html!)
  }

  async function signIn(who: string, email: string): Promise<void> {
    jars[who] = new CookieJar()
    const response = await request(campfire.baseUrl, jars[who]!, '/session', formPost({ email_address: email, password: PASSWORD }))
    assert.equal(response.status, 302)
  }

  before(async () => {
    campfire = await startCampfire({ after: (fn) => void cleanups.push(fn) })
    await signIn('david', 'david@37signals.com')
    await signIn('kevin', 'kevin@37signals.com')
  })

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  const room = (label: string) => campfire.labels[`rooms.${label}`]
  const message = (label: string) => campfire.labels[`messages.${label}`]

  test('signed out: sign-in, an error page and the browser gate', async () => {
    await check(null, '/session/new')
    await check(null, '/no-such-page', { status: 404 })
    await check(null, '/session/new', { headers: { 'user-agent': OLD_CHROME }, status: 406 })
    const account = await check('david', '/account/edit')
    const join = /\/join\/([\w-]+)/.exec(account)?.[1]
    assert.ok(join, 'the account page shows the join link')
    await check(null, `/join/${join}`)
  })

  test('rooms, their history, messages and the frames a room page loads', async () => {
    for (const label of ['watercooler', 'hq', 'pets', 'designers', 'quiet_corner', 'david_and_jason', 'group']) await check('david', `/rooms/${room(label)}`)
    const busy = room('watercooler')
    await check('david', `/rooms/${busy}/@${message('busy_060')}`)
    await check('david', `/rooms/${busy}/messages?before=${message('busy_060')}`)
    await check('david', `/rooms/${busy}/messages?after=${message('busy_005')}`)
    await check('david', `/rooms/${busy}/refresh?since=${Date.UTC(2026, 1, 1)}`, { accept: TURBO_STREAM })
    await check('david', `/rooms/${busy}/messages/${message('busy_060')}`)
    await check('david', `/messages/${message('busy_060')}/boosts`)
    await check('david', `/messages/${message('busy_060')}/boosts/new`)
    await check('david', `/messages/${message('busy_060')}/save`)
    await check('david', `/rooms/${busy}/involvement`)
    await check('david', `/users/${campfire.labels['users.david']}/sidebar`)
  })

  test('searches, profiles, the account, bots, custom styles and room settings', async () => {
    await check('david', '/searches')
    await check('david', '/searches?q=coffee')
    await check('david', '/searches?q=zebracorn')
    await check('david', '/users/me/mentions')
    await check('kevin', '/users/me/saves')
    for (const label of ['busy_060', 'busy_005']) {
      assert.equal((await request(campfire.baseUrl, jars.david!, `/messages/${message(label)}/save`, formPost({}))).status, 200)
    }
    await check('david', '/users/me/saves')
    await check('david', `/messages/${message('busy_060')}/save`)
    await check('david', '/users/me/profile')
    await check('david', `/users/${campfire.labels['users.jason']}`)
    await check('david', '/users/me/notification_help')
    await check('kevin', '/account/edit')
    await check('david', '/account/bots')
    await check('david', '/account/bots/new')
    await check('david', `/account/bots/${campfire.labels['users.bender']}/edit`)
    await check('david', '/account/custom_styles/edit')
    await check('david', '/account/export')
    await check('kevin', '/users/me/export')
    await check('david', '/rooms/opens/new')
    await check('david', '/rooms/closeds/new')
    await check('david', '/rooms/directs/new')
    await check('david', '/rooms/directs/new', { headers: { 'turbo-frame': 'new_direct' } })
    await check('david', `/rooms/opens/${room('hq')}/edit`)
    await check('david', `/rooms/closeds/${room('watercooler')}/edit`)
    await check('kevin', `/rooms/closeds/${room('watercooler')}/edit`)
  })

  test('the pushes a room’s members get when Kevin posts with a mention, boosts, edits and deletes', async (t) => {
    const busy = room('watercooler')
    const pages = (await check('david', `/rooms/${busy}`)) + (await check('david', '/users/me/sidebar'))
    const streams = [...pages.matchAll(/<turbo-cable-stream-source channel="([\w:]+)" signed-stream-name="([^"]+)">/g)].map(([, channel, name]) => JSON.stringify({ channel, signed_stream_name: name }))
    assert.ok(streams.length >= 3, 'the room and its sidebar subscribe to their streams')
    const cable = { url: `${campfire.baseUrl.replace('http', 'ws')}/cable`, origin: campfire.baseUrl } as CableApp
    const socket = openSocket(cable, { cookie: jars.david!.header() })
    t.after(() => socket.terminate())
    const david = new CableClient(socket)
    await david.frame((frame) => frame.type === 'welcome')
    for (const identifier of streams) {
      david.subscribe(identifier)
      await david.confirmed(identifier)
    }

    const send = async (path: string, fields: Record<string, string>) => {
      const response = await request(campfire.baseUrl, jars.kevin!, path, { ...formPost(fields), headers: { ...formPost(fields).headers, accept: TURBO_STREAM } })
      assert.ok(response.status < 400, `${path}: ${response.status} ${await response.text()}`)
    }
    const people = (await (await request(campfire.baseUrl, jars.kevin!, `/autocompletable/users?query=David`, { headers: { accept: 'application/json' } })).json()) as { sgid: string }[]
    const mention = `<action-text-attachment sgid="${people[0]!.sgid}" content-type="application/vnd.campfire.mention"></action-text-attachment>`
    const pushed = () => david.messages().filter((message): message is string => typeof message === 'string' && message.includes('<turbo-stream'))
    let seen = 0
    const validatePushes = async (what: string) => {
      await david.until(() => pushed().length > seen, 10_000)
      await new Promise((resolve) => setTimeout(resolve, 300))
      for (const push of pushed().slice(seen)) await validateStreams(`push after ${what}`, push)
      seen = pushed().length
    }

    await send(`/rooms/${busy}/messages`, { 'message[body]': `<p>Hi ${mention} can you check the <strong>deploy</strong>?</p><ul><li>one</li><li>two</li></ul>`, 'message[client_message_id]': 'valid-html-1' })
    await validatePushes('a post with a mention')
    const id = /data-message-id="(\d+)"/.exec(pushed().at(-1)!)?.[1]
    assert.ok(id, 'the push carries the new message')
    await send(`/messages/${id}/boosts`, { 'boost[content]': '🎉' })
    await validatePushes('a boost')
    await send(`/rooms/${busy}/messages/${id}`, { _method: 'patch', 'message[body]': `<p>Hi ${mention}, the deploy is done.</p>` })
    await validatePushes('an edit')
    await send(`/rooms/${busy}/messages/${id}`, { _method: 'delete' })
    await validatePushes('a delete')
  })

  test('a fresh install: the first-run page', async () => {
    await campfire.restart(() => rmSync(join(campfire.storage, 'db'), { recursive: true, force: true }))
    await check(null, '/first_run')
  })

  test('has no errors on any page, fragment or push', () => {
    assert.equal(problems.length, 0, `\n${problems.join('\n')}`)
    assert.ok(checked.length >= 40, `${checked.length} documents checked`)
  })
})

function explain(name: string, html: string, message: Message): string {
  const line = html.split('\n')[message.line - 1] ?? ''
  const excerpt = line.slice(Math.max(0, message.column - 60), message.column + 80).trim()
  return `${message.ruleId} in ${name} (${message.line}:${message.column}): ${message.message}\n    ${excerpt}`
}
