import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import sharp from 'sharp'
import { chromiumAvailable, DESKTOP, launchBrowser, openTab, PHONE, SCREENSHOTS, screenshot, signIn } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'

async function settle(page: Page): Promise<void> {
  await page.waitForFunction("!document.getAnimations().some((animation) => String(animation.effect?.pseudoElement).startsWith('::view-transition'))")
  await page.waitForFunction('[...document.images].every((image) => image.complete)')
}

// Saves your own profile (the top and the whole page), someone's public profile as an
// administrator and as a member sees it, and the join form's avatar picker, at desktop and
// phone widths, light and dark, to tmp/screenshots/ for review; none may log an error.
describe('the profile pages, for review', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('are drawn at desktop and phone widths in light and dark without any error', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const jason = campfire.labels['users.jason'] ?? 2
    const kevin = campfire.labels['users.kevin'] ?? 4
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        const { page } = tab
        await signIn(tab, 'david@37signals.com')
        await page.goto('/users/me/profile')
        await page.locator('[name="user[bio]"]').fill('Creator of Ruby on Rails, co-owner of 37signals. Races cars at Le Mans.')
        await page.getByRole('button', { name: 'Save changes', exact: true }).click()
        await page.locator('.flash').waitFor()
        const picture = await sharp({ create: { width: 900, height: 900, channels: 3, background: { r: 40, g: 110, b: 170 } } })
          .composite([{ input: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="900" height="900"><circle cx="450" cy="360" r="170" fill="#f2c6a0"/><rect x="190" y="560" width="520" height="400" rx="240" fill="#2b2b2b"/></svg>') }])
          .jpeg()
          .toBuffer()
        await Promise.all([page.waitForResponse((r) => r.url().endsWith('/users/me/profile') && r.request().method() === 'GET'), page.locator('#user_avatar').setInputFiles({ name: 'david.jpg', mimeType: 'image/jpeg', buffer: picture })])
        await page.getByRole('button', { name: 'Delete avatar' }).waitFor()
        await page.waitForTimeout(4000)
        await settle(page)
        await screenshot(page, `profile-${width}-${colorScheme}`)
        await page.screenshot({ path: join(SCREENSHOTS, `profile-full-${width}-${colorScheme}.png`), fullPage: true })

        await page.goto(`/users/${jason}`)
        await page.locator('h1').waitFor()
        await settle(page)
        await page.screenshot({ path: join(SCREENSHOTS, `user-admin-view-${width}-${colorScheme}.png`), fullPage: true })
        assert.deepEqual(tab.problems, [])
        await tab.context.close()

        const member = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        await signIn(member, 'kevin@37signals.com')
        await member.page.goto(`/users/${campfire.labels['users.david'] ?? 1}`)
        await member.page.locator('h1').waitFor()
        await settle(member.page)
        await screenshot(member.page, `user-${width}-${colorScheme}`)
        await member.page.goto(`/users/${kevin}`)
        await settle(member.page)
        await screenshot(member.page, `user-self-${width}-${colorScheme}`)
        assert.deepEqual(member.problems, [])
        await member.context.close()
      }
    }
  })
})
