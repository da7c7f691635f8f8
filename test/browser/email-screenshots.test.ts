import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { rooms, users } from '../fixtures.ts'
import { startEmailApp } from '../plugins/email/support.ts'
import { chromiumAvailable, DESKTOP, launchBrowser, openTab, PHONE, SCREENSHOTS, screenshot, signIn } from './support/browser.ts'

// Saves a missed-message email (HTML part, as a mail client draws it, at desktop and phone
// widths) and the profile's email switch, on and off, to tmp/screenshots/ for review.
describe('the missed-message email and its profile switch, for review', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('are drawn without any error, and the switch turns the emails off and on', async (t) => {
    const e = await startEmailApp(t)
    await e.post('david', rooms.hq.id, `<p>${e.mention(users.kevin.id)} the launch notes are ready, can you look before 3?</p>`)
    await e.post('jason', rooms.hq.id, `<p>${e.mention(users.kevin.id)} also: &lt;b&gt;this&lt;/b&gt; is how the old page wrote it. A longer paragraph to see how the text wraps in a narrow window, with enough words to need a few lines.</p>`)
    await e.post('david', rooms.david_and_kevin.id, '<p>lunch tomorrow?</p>')
    const [mail] = await e.inbox.waitFor(1)
    const logo = mail!.attachments.find((attachment) => attachment.cid === 'logo@campfire')
    assert.ok(logo, 'the logo travels in the email')
    const html = String(mail!.html).replace('cid:logo@campfire', `data:image/png;base64,${logo.content.toString('base64')}`)

    const browser = await launchBrowser(t)
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      const page = await browser.newPage({ viewport })
      await page.setContent(html)
      await page.screenshot({ path: join(SCREENSHOTS, `email-missed-messages-${width}.png`), fullPage: true })
      await page.close()
    }

    const tab = await openTab(browser, e.origin, { viewport: DESKTOP })
    await signIn(tab, users.kevin.email)
    await tab.page.goto('/users/me/profile')
    const toggle = tab.page.locator('#email_missed_messages')
    assert.equal(await toggle.getAttribute('aria-checked'), 'true')
    await toggle.scrollIntoViewIfNeeded()
    await screenshot(tab.page, 'profile-email-on')
    // The page is at /users/me/profile already, so the answer is waited for by what it shows.
    await toggle.click()
    await tab.page.locator('#email_missed_messages[aria-checked="false"]').waitFor({ timeout: 10_000 })
    assert.equal(e.app.store.read((m) => m.emailPreferences.wantsMissedMessages(users.kevin.id)), false)
    await tab.page.locator('#email_missed_messages').scrollIntoViewIfNeeded()
    await screenshot(tab.page, 'profile-email-off')
    assert.deepEqual(tab.problems, [])
  })
})
