import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import Database from 'better-sqlite3'
import { chromiumAvailable, DESKTOP, launchBrowser, openTab, PHONE, screenshot, signIn, SCREENSHOTS } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'

// Room settings in an account of 30 people, saved to tmp/screenshots/ for review
// (room-settings-30-<width>-<scheme>.png, and the whole page as room-settings-30-full-…).
describe('room settings with 30 people', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('list everyone in a list that grows with the page, with a filter, at desktop and phone widths, light and dark', async (t) => {
    const campfire = await startCampfire(t)
    await campfire.restart(() => {
      const db = new Database(join(campfire.storage, 'db', 'production.sqlite3'))
      try {
        const now = new Date().toISOString()
        const insert = db.prepare('INSERT INTO users (name, email_address, role, status, created_at, updated_at) VALUES (?, ?, 0, 0, ?, ?)')
        const people = db.prepare('SELECT COUNT(*) FROM users WHERE status = 0').pluck().get() as number
        for (let i = people; i < 30; i++) insert.run(`Person Number ${String(i + 1).padStart(2, '0')} Longname-Hyphenated`, `person${i}@example.com`, now, now)
        assert.equal(db.prepare('SELECT COUNT(*) FROM users WHERE status = 0').pluck().get(), 30)
      } finally {
        db.close()
      }
    })
    const browser = await launchBrowser(t)
    const admin = await openTab(browser, campfire.baseUrl)
    await signIn(admin, 'david@37signals.com')
    const edit = `/rooms/closeds/${campfire.labels['rooms.watercooler']}/edit`
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        await tab.context.addCookies(await admin.context.cookies())
        const { page } = tab
        await page.goto(edit)
        const people = page.locator('input[type="checkbox"][name*="user_ids"]')
        await people.first().waitFor()
        assert.ok((await people.count()) >= 29, `everyone but David is listed (${await people.count()})`)
        assert.ok(await page.getByRole('searchbox').or(page.getByPlaceholder(/filter|find/i)).first().isVisible(), 'a filter past 20 people')
        const pageWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number
        assert.ok(pageWidth <= viewport.width, `the page fits the ${viewport.width}px screen (${pageWidth}px)`)
        await screenshot(page, `room-settings-30-${width}-${colorScheme}`)
        await page.screenshot({ path: join(SCREENSHOTS, `room-settings-30-full-${width}-${colorScheme}.png`), fullPage: true })
        assert.deepEqual(tab.problems, [], `${width} ${colorScheme}`)
        await tab.context.close()
      }
    }
  })
})
