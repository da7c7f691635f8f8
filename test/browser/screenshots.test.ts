import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { chromiumAvailable, DESKTOP, launchBrowser, openTab, PHONE, screenshot, signIn, waitUntilLive } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'

// Saves the room page at desktop and phone widths, light and dark (and the sign-in and search
// pages), to tmp/screenshots/ for
// review, and checks none of those pages logs an error.
describe('the room page, for review', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('is drawn at desktop and phone widths in light and dark without any error', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const room = campfire.labels['rooms.watercooler']
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        if (width === 'desktop' && colorScheme === 'light') {
          await tab.page.goto('/session/new')
          await screenshot(tab.page, 'sign-in-desktop-light')
        }
        await signIn(tab, 'david@37signals.com')
        await tab.page.goto(`/rooms/${room}`)
        await waitUntilLive(tab.page)
        await tab.page.locator('#user_sidebar .room').first().waitFor()
        await tab.page.waitForTimeout(300)
        await screenshot(tab.page, `room-${width}-${colorScheme}`)
        if (width === 'phone' && colorScheme === 'light') {
          await tab.page.getByRole('button', { name: 'Open menu' }).click()
          await tab.page.waitForTimeout(400)
          await screenshot(tab.page, 'room-phone-sidebar-light')
        }
        if (colorScheme === 'dark') {
          await tab.page.goto('/searches')
          await tab.page.getByRole('searchbox', { name: 'search' }).fill('build')
          await tab.page.keyboard.press('Enter')
          await tab.page.locator('#search-results .message').first().waitFor()
          await screenshot(tab.page, `search-${width}-${colorScheme}`)
        }
        assert.deepEqual(tab.problems, [])
        await tab.context.close()
      }
    }
  })
})
