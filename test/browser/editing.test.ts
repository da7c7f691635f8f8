import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import Database from 'better-sqlite3'
import type { Browser, Locator, Page } from 'playwright-core'
import { startServer, stopServer, type ServerProcess } from '../support/server-process.ts'
import { chromiumAvailable, launchBrowser, openTab, openTabBeside, waitUntilLive, type Tab } from './support/browser.ts'
import { SECRET_KEY_BASE } from './support/campfire.ts'

const PAYLOAD = '<img src=x onerror="window.injected=true"><b>safe browser text</b>'

// One person on a fresh install, with the same room open in two tabs, sends and edits messages.
// What they write must be saved and shown in both tabs however it got into the field: typed,
// pasted, or set by a tool (Playwright's fill() puts the whole text in at once, as a paste does).
describe('editing a message in a real browser', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  let storage: string
  let server: ServerProcess
  let browser: Browser
  let first: Tab
  let second: Tab
  const cleanups: (() => Promise<void> | void)[] = []

  before(async () => {
    storage = mkdtempSync(join(tmpdir(), 'campfire-editing-'))
    server = await startServer({ CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true' })
    cleanups.push(async () => {
      await stopServer(server)
      rmSync(storage, { recursive: true, force: true })
    })
    browser = await launchBrowser({ after: (fn) => void cleanups.push(fn) })

    first = watchFailedRequests(await openTab(browser, server.baseUrl))
    const firstListening = roomMessagesConfirmed(first.page)
    await goThroughFirstRun(first.page)
    second = watchFailedRequests(await openTabBeside(first))
    const secondListening = roomMessagesConfirmed(second.page)
    await second.page.goto(first.page.url())
    await Promise.all([firstListening, secondListening])
    for (const tab of [first, second]) await waitUntilLive(tab.page)
  })

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  const messageIn = (tab: Tab, text: string) => tab.page.locator('#message-area .message[data-message-id]', { hasText: text })

  test('a message filled into the composer is sent, and the other tab shows it', async () => {
    await fillAndSend(first.page, 'Hello from the first tab')
    await messageIn(second, 'Hello from the first tab').waitFor()
    await fillAndSend(second.page, 'Hello from the second tab')
    await messageIn(first, 'Hello from the second tab').waitFor()

    assert.equal(bodyOf(await idOf(messageIn(first, 'Hello from the first tab'))), '<p>Hello from the first tab</p>')
    assert.equal(bodyOf(await idOf(messageIn(first, 'Hello from the second tab'))), '<p>Hello from the second tab</p>')
    assertNoProblems()
  })

  test('markup set as the composer’s value is sent, and its script never runs', async () => {
    await first.page.locator('lexxy-editor#message_body').evaluate((editor, html) => { (editor as unknown as { value: string }).value = html }, PAYLOAD)
    await first.page.getByRole('button', { name: 'Send Message' }).click()

    for (const tab of [first, second]) {
      const message = messageIn(tab, 'safe browser text')
      await message.waitFor()
      assert.equal(await message.locator('img[src="x"], [onerror]').count(), 0)
      await assertInert(tab)
    }
    assert.doesNotMatch(bodyOf(await idOf(messageIn(first, 'safe browser text'))) ?? '', /onerror|<img/)
    assertNoProblems()
  })

  test('an edit filled into the field is saved, and both tabs show it', async () => {
    const message = messageIn(first, 'Hello from the first tab')
    const id = await idOf(message)
    await openEditor(message)
    await first.page.getByRole('textbox', { name: 'Edit message' }).fill('Edited in the browser')
    await saveChanges(first.page, id)

    assert.equal(bodyOf(id), '<p>Edited in the browser</p>')
    await messageIn(second, 'Edited in the browser').waitFor()
    await messageIn(first, 'Edited in the browser').waitFor()
    for (const tab of [first, second]) {
      assert.equal(await messageIn(tab, 'Hello from the first tab').count(), 0)
      await assertInert(tab)
    }
    assertNoProblems()
  })

  test('an edit typed with the keyboard is saved, and both tabs show it', async () => {
    const message = messageIn(first, 'Hello from the second tab')
    const id = await idOf(message)
    await openEditor(message)
    const editor = first.page.getByRole('textbox', { name: 'Edit message' })
    await editor.click()
    await first.page.keyboard.press('ControlOrMeta+a')
    await editor.pressSequentially('Typed over in the browser')
    await saveChanges(first.page, id)

    assert.equal(bodyOf(id), '<p>Typed over in the browser</p>')
    await messageIn(second, 'Typed over in the browser').waitFor()
    await messageIn(first, 'Typed over in the browser').waitFor()
    for (const tab of [first, second]) assert.equal(await messageIn(tab, 'Hello from the second tab').count(), 0)
    assertNoProblems()
  })

  // The message's rich text as the server stored it.
  function bodyOf(messageId: number): string | undefined {
    const db = new Database(join(storage, 'db', 'production.sqlite3'), { readonly: true, fileMustExist: true })
    try {
      return db.prepare<[number], { body: string }>("SELECT body FROM action_text_rich_texts WHERE record_type = 'Message' AND record_id = ? AND name = 'body'").get(messageId)?.body
    } finally {
      db.close()
    }
  }

  function assertNoProblems(): void {
    assert.deepEqual([...first.problems, ...second.problems], [])
  }
})

async function goThroughFirstRun(page: Page): Promise<void> {
  await page.goto('/')
  await page.waitForURL(/\/first_run$/)
  await page.getByLabel('Your name').fill('Ada Lovelace')
  await page.getByLabel('Email address').fill('ada@example.com')
  await page.getByLabel('Password').fill('analytical-engine')
  await page.getByRole('button', { name: 'Create my account' }).click()
  await page.waitForURL(/\/rooms\/\d+$/)
}

// Resolves when the server confirms the page's RoomMessagesChannel subscription (call before loading the room).
function roomMessagesConfirmed(page: Page): Promise<void> {
  return new Promise((resolve) => {
    page.on('websocket', (socket) => {
      socket.on('framereceived', ({ payload }) => {
        const frame = String(payload)
        if (frame.includes('"confirm_subscription"') && frame.includes('RoomMessagesChannel')) resolve()
      })
    })
  })
}

// Requests the browser gave up on count as problems too, not only error responses.
function watchFailedRequests(tab: Tab): Tab {
  tab.page.on('requestfailed', (request) => tab.problems.push(`failed ${request.method()} ${request.url()}: ${request.failure()?.errorText}`))
  return tab
}

async function fillAndSend(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Write a message' }).fill(text)
  await page.getByRole('button', { name: 'Send Message' }).click()
}

async function openEditor(message: Locator): Promise<void> {
  await message.locator('summary').click()
  await message.getByRole('button', { name: 'Copy link' }).click()
  await message.getByRole('link', { name: 'Edit' }).click()
}

// Clicks "Save changes" and waits for the server to answer the update.
async function saveChanges(page: Page, messageId: number): Promise<void> {
  const saved = page.waitForResponse((response) => response.request().method() === 'POST' && new URL(response.url()).pathname.endsWith(`/messages/${messageId}`))
  await page.getByRole('button', { name: 'Save changes' }).click()
  await saved
}

async function idOf(message: Locator): Promise<number> {
  return Number(await message.getAttribute('data-message-id'))
}

async function assertInert(tab: Tab): Promise<void> {
  assert.equal(await tab.page.evaluate(() => (globalThis as unknown as { injected?: boolean }).injected), undefined)
}
