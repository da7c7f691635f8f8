import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { LANGUAGES, promptIn, type TranslationKey } from '../../server/rendering/helpers/translations.ts'
import { buildTestApp, inject, signIn } from '../helper.ts'

const JOIN_CODE = 'Ab12-Cd34-Ef56'

interface Popup {
  english: string
  langs: string[]
  flags: string[]
  // The name of the first form field after the popup: the one it translates.
  field: string | null
}

const decode = (html: string) =>
  html.replace(/&#x([0-9A-F]+);/g, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16))).replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&')

function popups(html: string): Popup[] {
  const found: Popup[] = []
  const pattern = /<details class="translation[^"]*"[^>]*>([\s\S]*?)<\/details>/g
  for (let match = pattern.exec(html); match; match = pattern.exec(html)) {
    const body = match[1]!
    assert.match(body, /<summary class="btn translation__btn" title="Translate" tabindex="-1"><span class="icon icon--globe" aria-hidden="true"><\/span><span class="for-screen-reader">Translate<\/span><\/summary>/)
    const entries = [...body.matchAll(/<dt><span class="translation__flag" aria-hidden="true">([^<]*)<\/span><span class="for-screen-reader">[^<]+<\/span><\/dt>\s*<dd lang="([^"]+)">([^<]*)<\/dd>/g)]
    const after = html.slice(match.index + match[0].length)
    found.push({
      english: decode(entries[0]?.[3] ?? ''),
      langs: entries.map((entry) => entry[2]!),
      flags: entries.map((entry) => decode(entry[1]!)),
      field: /<(?:input|textarea)[^>]*\bname="([^"]+)"/.exec(after)?.[1] ?? null,
    })
  }
  return found
}

async function page(app: FastifyInstance, cookie: string, url: string): Promise<string> {
  const response = await inject(app, cookie, { url })
  assert.equal(response.statusCode, 200, url)
  return response.body
}

function assertPopups(html: string, expected: [TranslationKey, string | null][], where: string): void {
  const found = popups(html)
  assert.deepEqual(found.map((popup) => popup.english), expected.map(([key]) => promptIn(key, 'en-US')), where)
  found.forEach((popup, index) => {
    assert.deepEqual(popup.langs, LANGUAGES.map((language) => language.lang), where)
    assert.deepEqual(popup.flags, ['🇺🇸', '🇪🇸', '🇫🇷', '🇮🇳', '🇩🇪', '🇧🇷', '🇯🇵'], where)
    const field = expected[index]![1]
    if (field) assert.equal(popup.field, field, `${where}: ${expected[index]![0]}`)
  })
}

test('the sign-in, join and first-run forms carry a Translate popup beside each field, in seven languages', async (t) => {
  const { app } = await buildTestApp(t)
  assertPopups(await page(app, '', '/session/new'), [['email_address', 'email_address'], ['password', 'password']], 'sign in')
  assertPopups(await page(app, '', `/join/${JOIN_CODE}`), [['user_name', 'user[name]'], ['email_address', 'user[email_address]'], ['password', 'user[password]']], 'join')
  const empty = await buildTestApp(t, { fixtures: false })
  assertPopups(await page(empty.app, '', '/first_run'), [['user_name', 'user[name]'], ['email_address', 'user[email_address]'], ['password', 'user[password]']], 'first run')
})

test('the profile translates name, email address, new password and bio', async (t) => {
  const { app } = await buildTestApp(t)
  const html = await page(app, await signIn(app, 'jz'), '/users/me/profile')
  assertPopups(html, [['user_name', 'user[name]'], ['email_address', 'user[email_address]'], ['update_password', 'user[password]'], ['bio', 'user[bio]']], 'profile')
  const bio = popups(html)[3]!
  assert.equal(bio.english, 'Enter a few words about yourself.')
})

test('room forms translate the room name, and the original room translates its welcome', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  assertPopups(await page(app, cookie, '/rooms/opens/new'), [['room_name', 'room[name]']], 'new open room')
  assertPopups(await page(app, cookie, '/rooms/closeds/new'), [['room_name', 'room[name]']], 'new closed room')
  assertPopups(await page(app, cookie, '/rooms/opens/2/edit'), [['room_name', 'room[name]']], 'open room settings')
  const original = await page(app, cookie, '/rooms/1')
  const welcome = original.slice(original.indexOf('id="system_welcome"'))
  assertPopups(welcome.slice(0, welcome.indexOf('</details>') + 10), [['invite_message', null]], 'welcome')
})

test('account settings, chat bots and custom styles carry their popups for administrators', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  assertPopups(await page(app, cookie, '/account/edit'), [['account_name', 'account[name]']], 'account')
  assertPopups(await page(app, cookie, '/account/bots'), [['chat_bots', null]], 'bots')
  assertPopups(await page(app, cookie, '/account/bots/new'), [['bot_name', 'user[name]'], ['webhook_url', 'user[webhook_url]']], 'new bot')
  assertPopups(await page(app, cookie, '/account/bots/5/edit'), [['bot_name', 'user[name]'], ['webhook_url', 'user[webhook_url]']], 'edit bot')
  assertPopups(await page(app, cookie, '/account/custom_styles/edit'), [['custom_styles', null]], 'custom styles')
})

test('a page with popups is still sent as Latin-1 text: every character beyond it is a reference', async (t) => {
  const { app } = await buildTestApp(t)
  const html = await page(app, await signIn(app, 'jz'), '/users/me/profile')
  const popup = /<details class="translation[\s\S]*?<\/details>/.exec(html)![0]
  assert.match(popup, /^[\u0000-\u00ff]*$/)
  assert.match(popup, /<dd lang="ja">&#x304A;/)
})
