import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { startServer, stopServer } from '../support/server-process.ts'
import { chromiumAvailable, launchBrowser, openTab, screenshot, sendMessage, waitUntilLive } from './support/browser.ts'
import { SECRET_KEY_BASE } from './support/campfire.ts'

// A brand-new install, as the benchmark's browser flow starts: set up the account, land in
// "All Talk", say something, and see the room's settings; no page may log an error.
describe('a fresh install in a real browser', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('sets up the account and posts the first message without any error', async (t) => {
    const storage = mkdtempSync(join(tmpdir(), 'campfire-first-run-'))
    const server = await startServer({ CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true' })
    t.after(async () => {
      await stopServer(server)
      rmSync(storage, { recursive: true, force: true })
    })
    const browser = await launchBrowser(t)
    const tab = await openTab(browser, server.baseUrl)
    const { page } = tab

    await page.goto('/')
    await page.waitForURL(/\/first_run$/)
    await screenshot(page, 'first-run-desktop-light')
    await page.getByLabel('Your name').fill('Ada Lovelace')
    await page.getByLabel('Email address').fill('ada@example.com')
    await page.getByLabel('Password').fill('analytical-engine')
    await page.getByRole('button', { name: 'Create my account' }).click()
    await page.waitForURL(/\/rooms\/\d+$/)
    await page.locator('#nav h1', { hasText: 'All Talk' }).waitFor()
    await waitUntilLive(page)

    await sendMessage(page, 'Hello, world! 🔥')
    await page.locator('#message-area .message.message--me[data-message-id]', { hasText: 'Hello, world!' }).waitFor()
    await sendMessage(page, '/play tada')
    await page.locator('#message-area .message[data-message-id] .sound').waitFor()
    await screenshot(page, 'room-first-run-desktop-light')

    await page.getByRole('link', { name: 'Settings for this room' }).click()
    await page.waitForURL(/\/rooms\/opens\/\d+\/edit$/)
    await page.goBack()
    await waitUntilLive(page)
    assert.deepEqual(tab.problems, [])
  })
})
