import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { chromiumAvailable, DESKTOP, launchBrowser, openTab, PHONE, screenshot, signIn, waitUntilLive } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'

async function settle(page: Page): Promise<void> {
  await page.waitForFunction("!document.getAnimations().some((animation) => String(animation.effect?.pseudoElement).startsWith('::view-transition'))")
}

// Saves the first room's welcome with its join link (as an administrator sees it, with the
// button that replaces it) at desktop and phone widths, light and dark, the join link's QR code
// in the lightbox, the sign-in link block on the profile and the invite block on the account
// page, and the transfer page as a browser without JavaScript shows it, to tmp/screenshots/ for
// review; none may log an error.
describe('the join and sign-in links, for review', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('are drawn at desktop and phone widths in light and dark without any error', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const room = campfire.labels['rooms.pets']
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        await signIn(tab, 'david@37signals.com')
        await tab.page.goto(`/rooms/${room}`)
        await waitUntilLive(tab.page)
        await tab.page.locator('#system_welcome').scrollIntoViewIfNeeded()
        await settle(tab.page)
        await screenshot(tab.page, `welcome-invite-${width}-${colorScheme}`)
        if (colorScheme === 'light') {
          await tab.page.getByRole('link', { name: 'Show join link QR code' }).click()
          await tab.page.locator('dialog.lightbox[open] img.lightbox__image').waitFor()
          await tab.page.waitForFunction("document.querySelector('dialog.lightbox[open] img')?.complete")
          await screenshot(tab.page, `invite-qr-code-${width}-light`)
          await tab.page.keyboard.press('Escape')
        }
        await tab.page.goto('/users/me/profile')
        await settle(tab.page)
        await tab.page.locator('fieldset.share-link--transfer').scrollIntoViewIfNeeded()
        await screenshot(tab.page, `profile-transfer-block-${width}-${colorScheme}`)
        await tab.page.goto('/account/edit')
        await settle(tab.page)
        await tab.page.locator('.share-link--invite').scrollIntoViewIfNeeded()
        await screenshot(tab.page, `account-invite-block-${width}-${colorScheme}`)
        assert.deepEqual(tab.problems, [])
        await tab.context.close()
      }
    }

    const context = await browser.newContext({ baseURL: campfire.baseUrl, viewport: PHONE, javaScriptEnabled: false })
    const page = await context.newPage()
    await page.goto('/session/transfers/any-id')
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    await screenshot(page, 'transfer-without-javascript-phone-light')
    await context.close()
  })
})
