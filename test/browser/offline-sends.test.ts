import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import Database from 'better-sqlite3'
import type { BrowserContext, Page, Route } from 'playwright-core'
import { chromiumAvailable, DESKTOP, launchBrowser, openTab, PHONE, screenshot, sendMessage, signIn, waitUntilLive } from './support/browser.ts'
import { startCampfire, type Campfire } from './support/campfire.ts'

// How many stored messages hold this text (read from the server's database file).
function stored(campfire: Campfire, text: string): number {
  const db = new Database(join(campfire.storage, 'db', 'production.sqlite3'), { readonly: true })
  try {
    return db.prepare('SELECT count(*) FROM message_search_index WHERE body = ?').pluck().get(text) as number
  } finally {
    db.close()
  }
}

// The stored rows holding this text, said when one is there that should not be.
function storedRows(campfire: Campfire, text: string): string {
  const db = new Database(join(campfire.storage, 'db', 'production.sqlite3'), { readonly: true })
  try {
    return JSON.stringify(db.prepare('SELECT messages.id, messages.created_at, messages.client_message_id FROM message_search_index JOIN messages ON messages.id = message_search_index.rowid WHERE message_search_index.body = ?').all(text))
  } finally {
    db.close()
  }
}

// Enter sends on a desktop; on a phone it is a new line, and the Send button sends.
async function send(page: Page, text: string, phone: boolean): Promise<void> {
  if (!phone) return sendMessage(page, text)
  const editor = page.getByRole('textbox', { name: 'Write a message' })
  await editor.click()
  await editor.pressSequentially(text)
  await page.getByRole('button', { name: 'Send Message' }).click()
}

// The network goes, for the page's requests too. Chromium's offline emulation alone was seen to
// let a fetch begun just as it switched reach the server (1 run in about 10 on a loaded machine;
// no real network does that), so every HTTP request is also refused as a lost network would.
async function goOffline(context: BrowserContext): Promise<void> {
  await context.route('**/*', (route) => route.abort('internetdisconnected'))
  await context.setOffline(true)
}

async function goOnline(context: BrowserContext): Promise<void> {
  await context.setOffline(false)
  await context.unrouteAll({ behavior: 'ignoreErrors' })
}

async function shown(page: Page, text: string): Promise<number> {
  return page.locator('#message-area .message:not(.message--pending)', { hasText: text }).count()
}

// Sends typed while the network is gone are kept, in the page and across a reload, and go out
// once when it is back; a refused one can be retried, and a retry whose first try did arrive is
// not stored twice.
describe('sending without a connection', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('says the connection is gone, keeps what is sent across a reload, and posts it once when the network is back, in order', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const tab = await openTab(browser, campfire.baseUrl)
    const { page, context } = tab
    await signIn(tab, 'david@37signals.com')
    const room = `/rooms/${campfire.labels['rooms.watercooler']}`
    await page.goto(room)
    await waitUntilLive(page)

    await goOffline(context)
    const status = page.getByRole('status').filter({ hasText: 'Reconnecting…' })
    await status.waitFor()
    await sendMessage(page, 'Sent in a tunnel')
    await sendMessage(page, 'And a second one')
    await page.locator('.message--waiting', { hasText: 'And a second one' }).waitFor()
    assert.equal(await page.locator('.message--waiting').count(), 2, 'both wait, marked so')
    assert.equal(await page.getByRole('textbox', { name: 'Write a message' }).isEditable(), true, 'the composer still takes messages')
    await screenshot(page, 'offline-waiting-desktop-light')

    // A reload without a network fails; the messages are still in this browser.
    await page.reload().catch(() => {})
    assert.equal(stored(campfire, 'Sent in a tunnel'), 0, `nothing reaches the server while offline; stored: ${storedRows(campfire, 'Sent in a tunnel')}`)
    await goOnline(context)
    await page.goto(room)
    await page.locator('#message-area .message:not(.message--pending)', { hasText: 'And a second one' }).waitFor()
    assert.equal(await status.isVisible(), false, 'the line is gone once connected')
    await page.waitForFunction(`!document.querySelector('.message--pending')`)
    assert.equal(stored(campfire, 'Sent in a tunnel'), 1)
    assert.equal(stored(campfire, 'And a second one'), 1)
    const order = await page.locator('#message-area .message').evaluateAll((messages) => messages.map((m) => m.textContent ?? '').filter((text) => /tunnel|second one/.test(text)).map((text) => (/tunnel/.test(text) ? 1 : 2)))
    assert.deepEqual(order, [1, 2], 'in the order they were sent')
    await page.reload()
    await waitUntilLive(page)
    assert.equal(await shown(page, 'Sent in a tunnel'), 1, 'shown once after another reload')
    assert.equal(await page.evaluate('Object.keys(localStorage).filter((key) => key.startsWith("campfire:unsent:")).length'), 0, 'nothing left unsent')
    assert.deepEqual(tab.problems.filter((problem) => !/ERR_INTERNET_DISCONNECTED|net::|Failed to load resource|WebSocket|TypeError: Failed to fetch/.test(problem)), [])
  })

  test('a refused send offers Retry; a retry across a reconnect, whose first try did arrive, is stored once', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const tab = await openTab(browser, campfire.baseUrl)
    const { page, context } = tab
    await signIn(tab, 'david@37signals.com')
    await page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
    await waitUntilLive(page)

    // The first try reaches the server and is stored, but its answer is lost on the way back, and
    // the page's socket misses the broadcast (its stream sources are gone).
    let tries = 0
    await page.route('**/rooms/*/messages', async (route: Route) => {
      if (route.request().method() !== 'POST') return route.continue()
      tries++
      if (tries > 1) return route.continue()
      await page.evaluate(`document.querySelectorAll('turbo-cable-stream-source').forEach((source) => source.remove())`)
      await route.fetch()
      await route.fulfill({ status: 502, contentType: 'text/plain', body: 'Bad gateway' })
    })
    await sendMessage(page, 'Did this arrive?')
    const failed = page.locator('.message--failed', { hasText: 'Did this arrive?' })
    await failed.waitFor()
    assert.equal(stored(campfire, 'Did this arrive?'), 1, 'the first try was stored')
    const retry = page.getByRole('button', { name: /^Retry sending: Did this arrive\?/ })
    await retry.waitFor()
    await screenshot(page, 'failed-send-retry-desktop-light')

    // Retry pressed while the connection is gone waits, and goes out when it is back.
    await context.setOffline(true)
    await page.getByRole('status').filter({ hasText: 'Reconnecting…' }).waitFor()
    await retry.click()
    await page.locator('.message--waiting', { hasText: 'Did this arrive?' }).waitFor()
    await context.setOffline(false)
    await page.locator('#message-area .message:not(.message--pending)', { hasText: 'Did this arrive?' }).waitFor()
    await page.waitForFunction(`!document.querySelector('.message--pending')`)
    assert.ok(tries >= 2, 'it was sent again')
    assert.equal(stored(campfire, 'Did this arrive?'), 1, 'the retry found the stored message')
    assert.equal(await shown(page, 'Did this arrive?'), 1)
    assert.equal(await page.locator('.message--failed').count(), 0)
  })

  test('the offline line, a waiting message and a refused one with Retry, on desktop and phone, light and dark', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        const { page, context } = tab
        await signIn(tab, 'david@37signals.com')
        await page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
        await waitUntilLive(page)
        await page.route('**/rooms/*/messages', (route) => (route.request().method() === 'POST' ? route.fulfill({ status: 503, contentType: 'text/plain', body: 'busy' }) : route.continue()))
        await send(page, `Refused on ${width}`, width === 'phone')
        await page.getByRole('button', { name: /^Retry sending/ }).waitFor()
        await screenshot(page, `failed-send-retry-${width}-${colorScheme}`)
        await context.setOffline(true)
        await page.getByRole('status').filter({ hasText: 'Reconnecting…' }).waitFor()
        await send(page, `Waiting on ${width}`, width === 'phone')
        await page.locator('.message--waiting').waitFor()
        const line = (await page.locator('.composer__connection').boundingBox())!
        const composer = (await page.getByRole('textbox', { name: 'Write a message' }).boundingBox())!
        assert.ok(line.y + line.height <= composer.y, 'the offline line sits above the composer')
        await screenshot(page, `offline-waiting-${width}-${colorScheme}`)
        await context.setOffline(false)
        await tab.context.close()
      }
    }
  })
})
