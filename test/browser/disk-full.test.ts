import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { describe, test } from 'node:test'
import { chromiumAvailable, launchBrowser, openTab, PHONE, screenshot, sendMessage, signIn, waitUntilLive } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'

// A full disk, made real for the server process with a file-size limit (RLIMIT_FSIZE of 4 KB:
// no database or WAL file can grow), after the person has signed in.
function fillDisk(pid: number, full: boolean): void {
  execFileSync('prlimit', ['--pid', String(pid), `--fsize=${full ? 4096 : 'unlimited'}:unlimited`], { stdio: 'pipe' })
}

describe('a full disk in the browser', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('a post refused for lack of space says so on the message, and a form says so on a page', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const hq = campfire.labels['rooms.hq']
    for (const [name, options] of [['desktop-light', {}], ['phone-dark', { viewport: PHONE, colorScheme: 'dark' as const }]] as const) {
      const tab = await openTab(browser, campfire.baseUrl, options)
      await signIn(tab, 'david@37signals.com')
      await tab.page.goto(`/rooms/${hq}`)
      await waitUntilLive(tab.page)

      fillDisk(campfire.pid(), true)
      t.after(() => {
        try {
          fillDisk(campfire.pid(), false)
        } catch {
          // The server has already stopped.
        }
      })
      // A phone's Enter makes a new line: the send button posts there.
      if (name === 'phone-dark') {
        await tab.page.getByRole('textbox', { name: 'Write a message' }).fill('Is the disk full?')
        await tab.page.getByRole('button', { name: 'Send Message' }).click()
      } else await sendMessage(tab.page, 'Is the disk full?')
      const failed = tab.page.locator('.message--failed', { hasText: 'Is the disk full?' })
      await failed.waitFor()
      assert.match((await failed.getAttribute('title')) ?? '', /^Not sent: the server is out of disk space/)
      await screenshot(tab.page, `disk-full-composer-${name}`)

      // A plain form post (the room's "leave" or any settings form) gets the page.
      const page = await tab.page.request.post(`/rooms/${hq}/messages`, { form: { 'message[body]': 'from a form' }, headers: { accept: 'text/html', 'sec-fetch-site': 'same-origin' } })
      assert.equal(page.status(), 507)
      await tab.page.setContent(await page.text())
      await screenshot(tab.page, `disk-full-page-${name}`)
      fillDisk(campfire.pid(), false)
      // A failed write makes the server refuse writes until it next looks at the disk (once a
      // second): the next round's sign-in waits for that.
      await tab.page.waitForTimeout(1500)
      await tab.page.context().close()
    }
  })
})
