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

// Saves the account page as an administrator and as a member sees it (the top, and the whole
// page), the custom styles page and the sign-in page, at desktop and phone widths, light and
// dark, then the account page, a room and the sign-in page with a logo of the account's own, to
// tmp/screenshots/ for review; none may log an error.
describe('the account pages, for review', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('are drawn at desktop and phone widths in light and dark without any error', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const admin = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        await admin.page.goto('/session/new')
        await admin.page.getByLabel('Email address').waitFor()
        await settle(admin.page)
        await screenshot(admin.page, `account-sign-in-${width}-${colorScheme}`)
        await signIn(admin, 'david@37signals.com')
        await admin.page.goto('/account/edit')
        await admin.page.locator('#invite_url').waitFor()
        await admin.page.locator('[name="account[name]"]').blur()
        await settle(admin.page)
        await screenshot(admin.page, `account-admin-${width}-${colorScheme}`)
        await admin.page.screenshot({ path: join(SCREENSHOTS, `account-admin-full-${width}-${colorScheme}.png`), fullPage: true })
        await admin.page.goto('/account/custom_styles/edit')
        await admin.page.locator('[name="account[custom_styles]"]').fill(':root {\n  --color-accent: oklch(60% 0.2 250);\n}\n')
        await settle(admin.page)
        await screenshot(admin.page, `custom-styles-${width}-${colorScheme}`)
        assert.deepEqual(admin.problems, [])
        await admin.context.close()

        const member = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        await signIn(member, 'kevin@37signals.com')
        await member.page.goto('/account/edit')
        await member.page.locator('#invite_url').waitFor()
        await settle(member.page)
        await screenshot(member.page, `account-member-${width}-${colorScheme}`)
        await member.page.screenshot({ path: join(SCREENSHOTS, `account-member-full-${width}-${colorScheme}.png`), fullPage: true })
        assert.deepEqual(member.problems, [])
        await member.context.close()
      }
    }

    // With a logo of the account's own: the account page, the room's nav and the sign-in page.
    const admin = await openTab(browser, campfire.baseUrl)
    await signIn(admin, 'david@37signals.com')
    await admin.page.goto('/account/edit')
    const logo = await sharp({ create: { width: 640, height: 640, channels: 3, background: '#1d4ed8' } })
      .composite([{ input: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="640" height="640"><circle cx="320" cy="320" r="200" fill="#fbbf24"/><text x="320" y="370" font-size="160" text-anchor="middle" font-family="sans-serif" font-weight="700" fill="#1d4ed8">37</text></svg>') }])
      .png()
      .toBuffer()
    await admin.page.locator('#account_logo').setInputFiles({ name: '37signals.png', mimeType: 'image/png', buffer: logo })
    await admin.page.getByRole('button', { name: 'Delete logo' }).waitFor()
    await settle(admin.page)
    await screenshot(admin.page, 'account-with-logo-desktop-light')
    await admin.page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
    await admin.page.locator('#nav .account-logo--nav img').waitFor()
    await settle(admin.page)
    await screenshot(admin.page, 'account-logo-room-nav-desktop-light')
    const visitor = await openTab(browser, campfire.baseUrl, { viewport: PHONE })
    await visitor.page.goto('/session/new')
    await settle(visitor.page)
    await screenshot(visitor.page, 'account-logo-sign-in-phone-light')
    assert.deepEqual([...admin.problems, ...visitor.problems], [])
  })
})
