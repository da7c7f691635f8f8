import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { chromiumAvailable, launchBrowser, openTab, waitUntilLive, type Tab } from './support/browser.ts'
import { PASSWORD, startCampfire, type Campfire } from './support/campfire.ts'

// The page's own globals, for the callbacks run inside it (the tests are typed without the DOM library).
declare const document: any, NodeFilter: any
declare function getComputedStyle(element: unknown, pseudo?: string): any
type HTMLElement = any
type HTMLInputElement = any
type DOMRect = any

// Campfire with the keyboard alone, as someone who does not use a mouse: sign in, reach the
// composer from the top of a busy room, send, switch rooms, edit, boost and start a Ping.
describe('the keyboard alone', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  let campfire: Campfire
  let browser: Browser
  let david: Tab
  let page: Page
  const cleanups: (() => Promise<void> | void)[] = []

  before(async () => {
    const t = { after: (fn: () => Promise<void> | void) => void cleanups.push(fn) }
    campfire = await startCampfire(t)
    browser = await launchBrowser(t)
    david = await openTab(browser, campfire.baseUrl)
    page = david.page
  })

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  const active = () =>
    page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null
      return { text: (element?.innerText ?? '').trim(), label: element?.getAttribute('aria-label') ?? '', name: element?.getAttribute('name') ?? '', inComposer: !!element?.closest('#composer'), quickBoost: !!element?.closest('.quick-boosts'), role: element?.getAttribute('role') ?? '', classes: String(element?.className ?? '') }
    })
  // Presses `key` until `reached` says focus is where it should be; how many presses it took.
  async function pressUntil(key: string, reached: (focus: Awaited<ReturnType<typeof active>>) => boolean, most: number): Promise<number> {
    for (let presses = 1; presses <= most; presses++) {
      await page.keyboard.press(key)
      if (reached(await active())) return presses
    }
    assert.fail(`${key} never reached it in ${most} presses (at ${JSON.stringify(await active())})`)
  }
  const inComposer = () => page.waitForFunction("!!document.activeElement?.closest('#composer lexxy-editor')")

  test('signs in', async () => {
    await page.goto('/session/new')
    if ((await active()).name !== 'email_address') await pressUntil('Tab', (focus) => focus.name === 'email_address', 5)
    await page.keyboard.type('david@37signals.com')
    await page.keyboard.press('Tab')
    await page.keyboard.type(PASSWORD)
    await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/session')), page.keyboard.press('Enter')])
  })

  test('reaches this room’s link in the room list from the top of a room in three key presses', async () => {
    await page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
    await waitUntilLive(page)
    await page.locator('#user_sidebar a.room[aria-current="page"]').waitFor()
    await page.evaluate(() => {
      ;(document.activeElement as HTMLElement | null)?.blur()
      document.body.tabIndex = -1
      document.body.focus()
      document.body.removeAttribute('tabindex')
    })
    assert.equal(await pressUntil('Tab', (focus) => focus.text === 'Skip to the room list', 2), 2)
    await page.keyboard.press('Enter')
    assert.deepEqual(await active().then((focus) => focus.text), 'All Talk')
    assert.equal(await page.evaluate(() => !!document.activeElement?.closest('#sidebar')), true, 'in the sidebar')
    await page.keyboard.press('Tab')
    assert.equal((await active()).text, 'Designers', 'the next Tab moves on through the rooms')
  })

  test('reaches the composer from the top of a busy room in two key presses', async () => {
    await page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
    await waitUntilLive(page)
    assert.ok(await page.locator('#message-area .message__options-btn').count() > 10, 'a busy room, with a menu per message')
    await page.evaluate(() => {
      ;(document.activeElement as HTMLElement | null)?.blur()
      document.body.tabIndex = -1
      document.body.focus()
      document.body.removeAttribute('tabindex')
    })
    assert.equal(await pressUntil('Tab', (focus) => focus.text === 'Skip to the message box', 1), 1)
    assert.ok(await page.getByRole('link', { name: 'Skip to the message box' }).isVisible(), 'the skip link shows while focused')
    await page.keyboard.press('Enter')
    await inComposer()
  })

  test('sends a message', async () => {
    await page.keyboard.type('Sent with the keyboard alone')
    await page.keyboard.press('Enter')
    await page.locator('#message-area .message.message--me[data-message-id]', { hasText: 'Sent with the keyboard alone' }).waitFor()
    await inComposer()
  })

  test('edits the last message with the up arrow and saves it', async () => {
    await page.keyboard.press('ArrowUp')
    await page.getByRole('textbox', { name: 'Edit message' }).waitFor()
    await page.waitForFunction("document.activeElement?.closest('lexxy-editor')?.getAttribute('aria-label') === 'Edit message'")
    await page.keyboard.press('End')
    await page.keyboard.type(', edited')
    await page.keyboard.press('ControlOrMeta+Enter')
    await page.locator('#message-area .message .trix-content', { hasText: 'Sent with the keyboard alone, edited' }).waitFor()
    await inComposer()
  })

  test('boosts the last message from its menu', async () => {
    await pressUntil('Shift+Tab', (focus) => focus.classes.includes('message__options-btn'), 8)
    const message = page.locator('#message-area .messages > .message[data-message-id]').last()
    assert.equal(await message.locator('.message__options-btn').evaluate((element) => element === document.activeElement), true, 'the last message’s menu')
    await page.keyboard.press('Enter')
    await message.locator('.message__actions-menu').waitFor()
    await pressUntil('Tab', (focus) => focus.quickBoost, 6)
    await page.keyboard.press('Enter')
    await message.locator('.boost').first().waitFor()
  })

  test('switches rooms from the sidebar, landing in the new room’s composer', async () => {
    await page.locator('#composer lexxy-editor [contenteditable="true"]').focus()
    await pressUntil('Tab', (focus) => focus.text === 'HQ', 40)
    await Promise.all([page.waitForURL(`**/rooms/${campfire.labels['rooms.hq']}`), page.keyboard.press('Enter')])
    await waitUntilLive(page)
    await inComposer()
  })

  test('starts a Ping with the New Ping picker', async () => {
    await pressUntil('Tab', (focus) => focus.text.endsWith('Ping') && focus.text.startsWith('New'), 10)
    await page.keyboard.press('Enter')
    await page.waitForFunction("document.activeElement?.getAttribute('role') === 'combobox'")
    await page.keyboard.type('Kev')
    await page.locator('suggestion-option', { hasText: 'Kevin McConnell' }).waitFor()
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    await page.locator('.autocomplete__pill', { hasText: 'Kevin McConnell' }).waitFor()
    await pressUntil('Tab', (focus) => focus.text === 'Start Ping', 6)
    await Promise.all([page.waitForURL(/\/rooms\/\d+$/), page.keyboard.press('Enter')])
    await page.locator('#nav h1', { hasText: 'Kevin McConnell' }).waitFor()
    assert.deepEqual(david.problems, [])
  })
})
