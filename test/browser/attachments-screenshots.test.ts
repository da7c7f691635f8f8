import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { chromiumAvailable, DESKTOP, launchBrowser, openTab, PHONE, screenshot, signIn, waitUntilLive } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'
import { dropFiles, landscape, textFile, throttleUploads, videoClip } from './support/files.ts'

// Saves, for review, the room while three dropped files are listed in the composer, while they
// upload (three pending messages with progress bars) and once they are sent (a thumbnail, a video
// with its poster, a file link), at desktop and phone widths in light and dark, to tmp/screenshots/.
describe('sending files, for review', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('the file list, the uploads in progress and the sent files are drawn without any error', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const clip = videoClip()
    const files = [await landscape('beach.jpg'), ...(clip ? [clip] : []), textFile('meeting-notes.txt', 'Minutes.\n'.repeat(2000))]
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        // Chromium on Linux has no share sheet; a stand-in shows the Share button as a phone would.
        await tab.context.addInitScript('Object.assign(navigator, { canShare: () => true, share: async () => {} })')
        await signIn(tab, 'david@37signals.com')
        await tab.page.goto(`/rooms/${campfire.labels['rooms.hq']}`)
        await waitUntilLive(tab.page)
        const { page } = tab

        await dropFiles(page, '#message-area .messages', files)
        await page.locator('#composer .composer__file img').evaluate((img) => (img as unknown as { decode(): Promise<void> }).decode())
        await screenshot(page, `attachments-listed-${width}-${colorScheme}`)

        const throttle = await throttleUploads(page, 48 * 1024)
        await page.getByRole('button', { name: 'Send Message' }).click()
        await page.waitForFunction(`(() => {
          const value = Number(document.querySelector('.message--pending [role="progressbar"]')?.getAttribute('aria-valuenow'))
          return value >= 25 && value <= 90 && document.querySelectorAll('.message--pending').length === ${files.length}
        })()`, undefined, { polling: 'raf' })
        await screenshot(page, `attachments-uploading-${width}-${colorScheme}`)

        await throttle.lift()
        await page.locator('.message--pending').first().waitFor({ state: 'detached', timeout: 60_000 })
        await imagesShown(page)
        await screenshot(page, `attachments-sent-${width}-${colorScheme}`)
        const file = page.locator('#message-area .messages > .message').last()
        await file.hover()
        await file.locator('.message__options-btn').click()
        await file.locator('.message__actions-menu').getByRole('button', { name: 'Share' }).waitFor()
        await screenshot(page, `attachments-menu-${width}-${colorScheme}`)
        await page.keyboard.press('Escape')
        assert.deepEqual(tab.problems, [])
        await tab.context.close()
      }
    }
  })
})

// The newest messages' thumbnails and posters have loaded, and the scroll has settled on them.
async function imagesShown(page: Page): Promise<void> {
  await page.waitForFunction(`[...document.querySelectorAll('#message-area .messages > .message:nth-last-child(-n+3) img')].every((img) => img.complete && img.naturalWidth > 0)`)
  await page.evaluate(`Promise.all([...document.querySelectorAll('#message-area .messages > .message:nth-last-child(-n+3) video[poster]')].map((video) => new Promise((resolve) => { const poster = new Image(); poster.onload = poster.onerror = resolve; poster.src = video.poster })))`)
  await page.evaluate(`new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))`)
  const messages = page.locator('#message-area .messages')
  await messages.evaluate((list) => list.scrollTo({ top: list.scrollHeight }))
}
