import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { audit, describeFindings, type Finding } from './support/axe.ts'
import { chromiumAvailable, launchBrowser, openTab, openTabBeside, PHONE, screenshot, sendMessage, signIn, waitUntilLive, type Tab } from './support/browser.ts'
import { startCampfire, type Campfire } from './support/campfire.ts'
import { photo } from './support/files.ts'
import { WIDE_CODE } from './support/code.ts'

// Moderate findings we keep on purpose, each with the reason. Anything critical or serious, and
// any moderate finding not listed here, fails the gate. (Minor findings fail it too.)
const ACCEPTED: { rule: string; state: RegExp; reason: string }[] = []

const OLD_CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36'

// axe-core, in light and dark colours, on every state a person meets: signed out, in a busy room
// and an empty one, editing, with menus open, searching, on profiles and account pages, starting a
// Ping, looking at a photo, on an old browser and on error pages, and on the Saved page.
describe('accessibility of every page state, checked by axe-core', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  const cleanups: (() => Promise<void> | void)[] = []
  const t = { after: (fn: () => Promise<void> | void) => void cleanups.push(fn) }
  let campfire: Campfire
  let browser: Browser
  let david: Tab
  let kevin: Tab
  const findings: Finding[] = []
  const states: string[] = []
  const check = async (page: Page, state: string) => {
    states.push(state)
    findings.push(...(await audit(page, state)))
  }
  // The pages whose colours this gate changed, saved light and dark to tmp/screenshots/a11y-*.png.
  const shoot = async (page: Page, name: string) => {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme })
      await page.waitForTimeout(200)
      await screenshot(page, `a11y-${name}-${colorScheme}`)
    }
    await page.emulateMedia({ colorScheme: 'light' })
  }

  before(async () => {
    campfire = await startCampfire(t)
    browser = await launchBrowser(t)
    david = await openTab(browser, campfire.baseUrl)
    kevin = await openTab(browser, campfire.baseUrl)
  })

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  test('signed out: the sign-in page, an error page and the browser gate', async () => {
    const anonymous = await openTab(browser, campfire.baseUrl)
    await anonymous.page.goto('/session/new')
    await check(anonymous.page, 'sign-in')
    await shoot(anonymous.page, 'sign-in')
    await anonymous.page.goto('/no-such-page')
    await check(anonymous.page, 'not found (404)')
    await anonymous.context.close()

    const old = await browser.newContext({ baseURL: campfire.baseUrl, userAgent: OLD_CHROME })
    const page = await old.newPage()
    await page.goto('/session/new')
    await page.getByRole('heading', { level: 1 }).waitFor()
    await check(page, 'browser gate')
    await old.close()
  })

  test('in rooms: busy, typing, with menus open, editing, empty, and with a photo', async () => {
    await signIn(david, 'david@37signals.com')
    await signIn(kevin, 'kevin@37signals.com')
    const busy = `/rooms/${campfire.labels['rooms.watercooler']}`
    for (const tab of [david, kevin]) {
      await tab.page.goto(busy)
      await waitUntilLive(tab.page)
    }
    const { page } = david
    await check(page, 'room, busy')

    await kevin.page.getByRole('textbox', { name: 'Write a message' }).click()
    await kevin.page.keyboard.type('Thinking')
    await page.getByRole('status').filter({ hasText: 'is typing' }).waitFor()
    // A screen reader hears both through polite live regions: the region's text changes when
    // Kevin types, and again when he posts.
    const typing = page.locator('.typing-indicator__author')
    assert.equal(await typing.getAttribute('aria-live'), 'polite')
    assert.equal(await typing.textContent(), 'Kevin McConnell is typing…')
    await check(page, 'room, someone typing')
    const announcements = page.locator('#announcements_of_messages')
    assert.equal(await announcements.getAttribute('aria-live'), 'polite')
    assert.equal(await announcements.textContent(), '')
    await kevin.page.keyboard.type(' it over')
    await kevin.page.keyboard.press('Enter')
    await page.waitForFunction("document.querySelector('#announcements_of_messages').textContent !== ''")
    assert.equal(await announcements.textContent(), 'Kevin McConnell: Thinking it over')
    await page.waitForFunction("document.querySelector('.typing-indicator__author').textContent === ''")
    await sendMessage(page, 'My own words are not read back to me')
    await page.locator('.message--me', { hasText: 'My own words' }).waitFor()
    await page.waitForTimeout(300)
    assert.equal(await announcements.textContent(), 'Kevin McConnell: Thinking it over')


    const last = page.locator('#message-area .messages > .message[data-message-id]').last()
    await last.locator('.message__options-btn').click()
    await last.locator('.message__actions-menu').waitFor()
    await last.getByRole('button', { name: 'Save', exact: true }).waitFor()
    await check(page, 'room, message menu open')
    await last.getByRole('button', { name: 'Save', exact: true }).click()
    await last.getByRole('button', { name: 'Unsave', exact: true }).waitFor()
    await check(page, 'room, message menu open, the message saved')
    await page.keyboard.press('Escape')

    await page.locator('#user_sidebar a.direct__new').click()
    await page.getByRole('combobox', { name: 'People to ping' }).fill('Kev')
    await page.locator('suggestion-select suggestion-option', { hasText: 'Kevin McConnell' }).waitFor()
    await check(page, 'room, New Ping picker with suggestions')
    await page.locator('suggestion-select suggestion-option', { hasText: 'Kevin McConnell' }).click()
    await page.locator('.autocomplete__pill', { hasText: 'Kevin McConnell' }).waitFor()
    await check(page, 'room, New Ping picker with a person chosen')
    await page.keyboard.press('Escape')

    await page.goto(busy)
    await waitUntilLive(page)
    await sendMessage(page, 'An accessible message')
    const mine = page.locator('#message-area .message.message--me[data-message-id]', { hasText: 'An accessible message' })
    await mine.waitFor()
    await mine.hover()
    await mine.locator('.message__options-btn').click()
    await mine.getByRole('link', { name: 'Edit' }).click()
    await page.getByRole('textbox', { name: 'Edit message' }).waitFor()
    await check(page, 'room, editing a message')
    await page.getByRole('button', { name: 'Delete', exact: true }).click()
    await page.getByText('Delete this message for everyone?').waitFor()
    await check(page, 'room, confirming a delete')
    await page.keyboard.press('Escape')

    await page.goto('/rooms/opens/new')
    await check(page, 'new room')
    await page.getByLabel('Name').first().fill('Empty for now')
    await Promise.all([page.waitForURL(/\/rooms\/\d+$/), page.keyboard.press('Enter')])
    await waitUntilLive(page)
    await check(page, 'room, empty')

    await page.locator('#composer input[type="file"]').setInputFiles(await photo('lake.jpg', 800, 600))
    await page.getByRole('button', { name: 'Send Message' }).click()
    const image = page.locator('#message-area .message[data-message-id] a[data-lightbox] img').first()
    await image.waitFor()
    await check(page, 'room, with a photo')
    await image.click()
    await page.locator('dialog.lightbox[open]').waitFor()
    await check(page, 'room, photo in the lightbox')
  })

  test('searching, profiles, the account, bots, custom styles and room settings', async () => {
    const visit = async (tab: Tab, path: string, state: string, picture?: string) => {
      await tab.page.goto(path)
      await check(tab.page, state)
      if (picture) await shoot(tab.page, picture)
    }
    await visit(david, '/searches', 'search, empty')
    await visit(david, '/searches?q=coffee', 'search, results')
    await visit(david, '/searches?q=zebracorn', 'search, no match')
    await visit(kevin, '/users/me/mentions', 'mentions inbox', 'mentions-inbox')
    await visit(kevin, '/users/me/saves', 'saved messages, none yet')
    await visit(david, '/users/me/saves', 'saved messages', 'saved')
    await visit(david, '/users/me/profile', 'own profile')
    await visit(david, `/users/${campfire.labels['users.jason']}`, 'another’s profile')
    await visit(david, '/account/edit', 'account, administrator', 'account')
    await visit(kevin, '/account/edit', 'account, member')
    await visit(david, '/account/bots', 'bots')
    await visit(david, '/account/bots/new', 'new bot')
    await visit(david, '/account/custom_styles/edit', 'custom styles')
    await visit(david, `/rooms/opens/${campfire.labels['rooms.hq']}/edit`, 'room settings, open', 'room-settings')
    await visit(david, `/rooms/closeds/${campfire.labels['rooms.watercooler']}/edit`, 'room settings, closed')
    await visit(david, '/rooms/closeds/new', 'new closed room')
    await visit(david, '/rooms/directs/new', 'New Ping page', 'new-ping')
    await visit(kevin, `/rooms/closeds/${campfire.labels['rooms.watercooler']}/edit`, 'room settings, read only')
    await visit(david, `/rooms/${campfire.labels['rooms.david_and_jason']}`, 'a Ping')
  })

  test('a wide code block on a phone, New Ping with two and three people, a two-person Ping, Ping settings and a message heading', async () => {
    const posted = await fetch(`${campfire.baseUrl}/rooms/${campfire.labels['rooms.watercooler']}/${campfire.labels['bot_keys.bender']}/messages`, { method: 'POST', body: WIDE_CODE })
    assert.equal(posted.status, 201)
    const phone = await openTab(browser, campfire.baseUrl, { viewport: PHONE })
    await signIn(phone, 'david@37signals.com')
    await phone.page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
    await waitUntilLive(phone.page)
    const code = phone.page.locator('#message-area .message[data-message-id] pre[tabindex="0"]', { hasText: 'const palette' })
    await code.waitFor()
    await code.scrollIntoViewIfNeeded()
    await check(phone.page, 'room on a phone, a wide code block')
    await phone.context.close()

    const { page } = david
    await page.goto('/rooms/directs/new')
    for (const [typed, name, count] of [['Jason F', 'Jason Fried', 1], ['Kev', 'Kevin McConnell', 2], ['Zimd', 'Jason Zimdars', 3]] as const) {
      await page.getByRole('combobox', { name: 'People to ping' }).fill(typed)
      await page.locator('suggestion-select suggestion-option', { hasText: name }).click()
      await page.locator('.autocomplete__pill', { hasText: name }).waitFor()
      if (count > 1) await check(page, `New Ping page, ${count} people chosen`)
    }
    await page.goto('/rooms/directs/new')
    for (const [typed, name] of [['Jason F', 'Jason Fried'], ['Kev', 'Kevin McConnell']] as const) {
      await page.getByRole('combobox', { name: 'People to ping' }).fill(typed)
      await page.locator('suggestion-select suggestion-option', { hasText: name }).click()
      await page.locator('.autocomplete__pill', { hasText: name }).waitFor()
    }
    await Promise.all([page.waitForURL(/\/rooms\/\d+$/), page.getByRole('button', { name: 'Start Ping' }).click()])
    const roomId = /\/rooms\/(\d+)$/.exec(page.url())![1]
    await page.locator(`#user_sidebar a.direct[data-room-id="${roomId}"] .avatar__group`).waitFor()
    await check(page, 'a Ping with two other people, its tile in the sidebar')
    await page.goto(`/rooms/directs/${roomId}/edit`)
    await check(page, 'Ping settings, two other people')
    await page.goto(`/rooms/directs/${campfire.labels['rooms.david_and_jason']}/edit`)
    await check(page, 'Ping settings, one other person')
    await page.goto(`/rooms/${campfire.labels['rooms.designers']}`)
    await waitUntilLive(page)
    await page.locator('#message-area .trix-content h4', { hasText: 'Design review' }).waitFor()
    await check(page, 'room with a heading in a message')
  })

  test('sending without a connection: the offline line, a waiting message, a refused one with Retry', async () => {
    const tab = await openTabBeside(david)
    const { page } = tab
    await page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
    await waitUntilLive(page)
    await page.route('**/rooms/*/messages', (route) => (route.request().method() === 'POST' ? route.fulfill({ status: 503, contentType: 'text/plain', body: 'busy' }) : route.continue()), { times: 1 })
    await sendMessage(page, 'Refused once')
    await page.getByRole('button', { name: /^Retry sending/ }).waitFor()
    await check(page, 'room, a failed send with Retry')
    await tab.context.setOffline(true)
    await page.getByRole('status').filter({ hasText: 'Reconnecting…' }).waitFor()
    await sendMessage(page, 'Sent offline')
    await page.locator('.message--waiting').waitFor()
    await check(page, 'room, offline with a waiting message')
    await tab.context.setOffline(false)
    await page.close()
  })

  test('a fresh install: the first-run page', async () => {
    await campfire.restart(() => rmSync(join(campfire.storage, 'db'), { recursive: true, force: true }))
    const fresh = await openTab(browser, campfire.baseUrl)
    await fresh.page.goto('/')
    await fresh.page.waitForURL(/\/first_run$/)
    await check(fresh.page, 'first run')
    await fresh.context.close()
  })

  test('no state has a critical, serious or unlisted finding', () => {
    const open = findings.filter((f) => !ACCEPTED.some((a) => a.rule === f.rule && a.state.test(f.state)))
    assert.equal(open.length, 0, `\n${describeFindings(open)}`)
    assert.ok(states.length >= 30, `${states.length} states checked`)
  })
})
