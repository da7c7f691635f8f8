import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { chromiumAvailable, DESKTOP, launchBrowser, openTab, PHONE, screenshot, signIn } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'

const LANGUAGES = ['English', 'Español', 'Français', 'हिन्दी', 'Deutsch', 'Português (Brasil)', '日本語']

// What Chromium's accessibility tree says of an element: its role and its accessible name.
async function accessible(page: Page, selector: string): Promise<{ role: string; name: string }> {
  const cdp = await page.context().newCDPSession(page)
  const { root } = await cdp.send('DOM.getDocument')
  const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector })
  const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false })
  await cdp.detach()
  return { role: String(nodes[0]?.role?.value), name: String(nodes[0]?.name?.value) }
}

async function settle(page: Page): Promise<void> {
  await page.waitForFunction("!document.getAnimations().some((animation) => String(animation.effect?.pseudoElement).startsWith('::view-transition'))")
}

// The 🌐 popups: one opens on a click and lists the field's prompt in seven languages, inside the
// window; Escape and a click elsewhere close it. Saved open on the sign-in page, the profile,
// the first room's welcome and the chat bots page,
// at desktop and phone widths, light and dark, to tmp/screenshots/ for review.
describe('the Translate popups', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('open on a click with the prompt in seven languages, and close on Escape or a click elsewhere', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const tab = await openTab(browser, campfire.baseUrl)
    const { page } = tab
    await page.goto('/session/new')
    const buttons = page.locator('summary.translation__btn')
    assert.equal(await buttons.count(), 2)
    // A <summary> is a disclosure button to assistive technology, named by its hidden text.
    assert.deepEqual(await accessible(page, 'summary.translation__btn'), { role: 'DisclosureTriangle', name: 'Translate' })
    assert.equal(await page.locator('details.translation').first().getAttribute('open'), null)
    const popup = page.locator('details.translation').first()
    const menu = popup.locator('.translation__menu')
    assert.equal(await menu.isVisible(), false)
    await buttons.first().click()
    await menu.waitFor({ state: 'visible' })
    assert.equal(await accessible(page, 'details.translation[open] > summary').then((node) => node.name), 'Translate')
    assert.deepEqual(await menu.locator('dt .for-screen-reader').allTextContents(), LANGUAGES)
    assert.deepEqual(await menu.locator('dt [aria-hidden="true"]').allTextContents(), ['🇺🇸', '🇪🇸', '🇫🇷', '🇮🇳', '🇩🇪', '🇧🇷', '🇯🇵'])
    assert.equal(await menu.locator('dd[lang="ja"]').textContent(), 'メールアドレスを入力してください')
    assert.equal(await menu.locator('dd[lang="es"]').textContent(), 'Introduce tu correo electrónico')
    const box = (await menu.boundingBox())!
    assert.ok(box.x >= 0 && box.x + box.width <= DESKTOP.width, 'inside the window')
    await page.keyboard.press('Escape')
    await menu.waitFor({ state: 'hidden' })
    await buttons.nth(1).click()
    await page.locator('details.translation').nth(1).locator('dd[lang="de"]').getByText('Geben Sie Ihr Passwort ein').waitFor()
    await page.locator('h1').click()
    await page.locator('details.translation[open]').waitFor({ state: 'detached' })
    assert.deepEqual(tab.problems, [])
  })

  test('are drawn open at desktop and phone widths in light and dark', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        const { page } = tab
        await page.goto('/session/new')
        await page.locator('summary.translation__btn').first().click()
        await page.locator('details.translation[open] dd[lang="ja"]').waitFor()
        await settle(page)
        await screenshot(page, `translations-sign-in-${width}-${colorScheme}`)
        for (const box of await page.locator('details.translation[open] .translation__menu').all()) {
          const { x, width: w } = (await box.boundingBox())!
          assert.ok(x >= 0 && x + w <= viewport.width, `${width}: the popup stays inside the window`)
        }
        await signIn(tab, 'david@37signals.com')
        await page.goto('/users/me/profile')
        await page.locator('#user_bio').waitFor()
        await settle(page)
        await page.locator('details.translation').nth(3).locator('summary').click()
        await page.locator('details.translation[open] dd[lang="hi"]').waitFor()
        await screenshot(page, `translations-profile-bio-${width}-${colorScheme}`)
        await page.goto(`/rooms/${campfire.labels['rooms.pets'] ?? 1}`)
        await page.locator('#system_welcome summary.translation__btn').click()
        await page.locator('#system_welcome details.translation[open] dd[lang="pt-BR"]').waitFor()
        await settle(page)
        await screenshot(page, `translations-welcome-${width}-${colorScheme}`)
        await page.goto('/account/bots')
        await page.locator('summary.translation__btn').click()
        await page.locator('details.translation[open] dd[lang="fr"]').waitFor()
        await settle(page)
        await screenshot(page, `translations-bots-${width}-${colorScheme}`)
        assert.deepEqual(tab.problems, [])
        await tab.context.close()
      }
    }
  })
})
