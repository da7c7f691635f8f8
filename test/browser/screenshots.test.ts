import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { chromiumAvailable, DESKTOP, launchBrowser, openTab, PHONE, screenshot, signIn, waitUntilLive } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'

// Turbo's page changes run as view transitions (a quarter second of cross-fade); a screenshot
// taken during one shows the old page through the new.
async function settle(page: Page): Promise<void> {
  await page.waitForFunction("!document.getAnimations().some((animation) => String(animation.effect?.pseudoElement).startsWith('::view-transition'))")
}

// Saves the sign-in page, the room page and the search page (empty, and with results) at desktop
// and phone widths, light and dark, to tmp/screenshots/ for review, and checks none of them logs an error.
describe('the main pages, for review', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('are drawn at desktop and phone widths in light and dark without any error', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const room = campfire.labels['rooms.watercooler']
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        await tab.page.goto('/session/new')
        await tab.page.getByLabel('Email address').waitFor()
        await settle(tab.page)
        await screenshot(tab.page, `sign-in-${width}-${colorScheme}`)
        await signIn(tab, 'david@37signals.com')
        await tab.page.goto(`/rooms/${room}`)
        await waitUntilLive(tab.page)
        await tab.page.locator('#user_sidebar .room').first().waitFor()
        await tab.page.waitForTimeout(300)
        await settle(tab.page)
        await screenshot(tab.page, `room-${width}-${colorScheme}`)
        if (width === 'phone' && colorScheme === 'light') {
          await tab.page.getByRole('button', { name: 'Open menu' }).click()
          await tab.page.waitForTimeout(400)
          await screenshot(tab.page, 'room-phone-sidebar-light')
        }
        await tab.page.goto('/searches')
        await tab.page.getByRole('searchbox', { name: 'search' }).waitFor()
        await settle(tab.page)
        await screenshot(tab.page, `search-empty-${width}-${colorScheme}`)
        await tab.page.getByRole('searchbox', { name: 'search' }).fill('build')
        await tab.page.keyboard.press('Enter')
        await tab.page.locator('#search-results .message').first().waitFor()
        await settle(tab.page)
        await screenshot(tab.page, `search-${width}-${colorScheme}`)
        assert.deepEqual(tab.problems, [])
        await tab.context.close()
      }
    }
  })
})
