import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { chromiumAvailable, DESKTOP, launchBrowser, openTab, PHONE, screenshot, signIn, waitUntilLive } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'

// Once scrolling has stopped.
async function settled(page: Page): Promise<void> {
  await page.waitForFunction(`new Promise((resolve) => {
    let last = -1, still = 0
    const look = () => {
      const top = [...document.querySelectorAll('*')].reduce((sum, el) => sum + el.scrollTop, 0)
      still = top === last ? still + 1 : 0
      last = top
      if (still >= 5) resolve(true); else requestAnimationFrame(look)
    }
    look()
  })`)
}

// Editing the newest message: its editor, Delete, Cancel and Save included, is scrolled into view
// above the composer, which the room's messages scroll under.
describe('editing the newest message', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('shows its Delete, Cancel and Save above the composer, on desktop and phone, light and dark', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      const tab = await openTab(browser, campfire.baseUrl, { viewport })
      const { page } = tab
      await signIn(tab, 'david@37signals.com')
      await page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
      await waitUntilLive(page)
      const editor = page.getByRole('textbox', { name: 'Write a message' })
      await editor.click()
      await editor.pressSequentially(`The newest message, on ${width}`)
      await page.getByRole('button', { name: 'Send Message' }).click()
      const mine = page.locator('#message-area .message.message--me[data-message-id]', { hasText: `The newest message, on ${width}` })
      await mine.waitFor()
      await mine.locator('.message__options-btn').click()
      await mine.getByRole('link', { name: 'Edit' }).click()
      await page.getByRole('textbox', { name: 'Edit message' }).waitFor()
      await settled(page)
      const composer = (await page.locator('#composer').boundingBox())!
      for (const name of ['Delete', 'Cancel', 'Save changes']) {
        const control = page.locator('.message__edit-actions').getByRole(name === 'Cancel' ? 'link' : 'button', { name, exact: true })
        const box = (await control.boundingBox())!
        assert.ok(box.y + box.height <= composer.y, `${name}'s bottom (${box.y + box.height}) is above the composer's top (${composer.y}) on ${width}`)
        assert.ok(box.y >= 0, `${name} is on screen on ${width}`)
      }
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme })
        await page.waitForTimeout(200)
        await screenshot(page, `editing-last-message-${width}-${colorScheme}`)
      }
      assert.deepEqual(tab.problems, [])
      await tab.context.close()
    }
  })
})
