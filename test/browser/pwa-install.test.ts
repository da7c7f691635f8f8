import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { chromiumAvailable, launchBrowser, openTab, screenshot, signIn } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'

// The profile's install steps, in Chromium (desktop Chrome's steps): the "Install now" button
// appears only once the browser offers its install prompt (a synthetic beforeinstallprompt
// here), and pressing it shows that prompt. In the installed app (display-mode: standalone, whose
// rules are applied by hand) the steps are hidden and hide-in-browser things show.
describe('installing Campfire as a web app from the profile', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('offers Install now once the browser can install, and pressing it shows the browser’s prompt', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const tab = await openTab(browser, campfire.baseUrl)
    const { page } = tab
    await signIn(tab, 'david@37signals.com')
    await page.goto('/users/me/profile')
    const steps = page.locator('details.pwa__instructions')
    await steps.waitFor()
    assert.equal(await steps.getAttribute('data-install-steps'), 'desktop-chromium')
    await page.getByText('Install Campfire as a web app.').click()
    await page.getByText(/at the end of Chrome’s address bar/).waitFor()
    const install = page.getByRole('button', { name: 'Install now' })
    assert.equal(await install.isVisible(), false, 'no button before the browser offers to install')

    // What the browser fires when it could install the page: an event with prompt().
    const prevented = await page.evaluate(`(() => {
      const offer = new Event('beforeinstallprompt', { cancelable: true })
      window.prompts = 0
      offer.prompt = async () => { window.prompts++ }
      window.dispatchEvent(offer)
      return offer.defaultPrevented
    })()`)
    assert.equal(prevented, true, 'the browser’s own mini-infobar is held back')
    await install.waitFor({ state: 'visible' })
    await screenshot(page, 'pwa-install-offered-desktop-light')
    await install.click()
    await page.waitForFunction('window.prompts === 1')
    await install.waitFor({ state: 'hidden' })
    await page.evaluate("window.dispatchEvent(new Event('appinstalled'))")
    assert.equal(await page.evaluate('window.prompts'), 1, 'pressed once, prompted once')
    assert.deepEqual(tab.problems, [])
  })

  test('in the installed app the steps are hidden and hide-in-browser things show', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const tab = await openTab(browser, campfire.baseUrl)
    const { page } = tab
    await signIn(tab, 'david@37signals.com')
    await page.goto('/users/me/profile')
    await page.locator('details.pwa__instructions').waitFor()
    await page.evaluate(`for (const name of ['hide-in-browser', 'hide-in-pwa', 'hide-in-ios-pwa', 'plain']) {
      const probe = document.createElement('span')
      probe.className = name + ' btn'
      probe.id = 'probe-' + name
      probe.textContent = name
      document.body.append(probe)
    }`)
    assert.equal(await page.locator('#probe-hide-in-browser').isVisible(), false, 'hidden in a browser tab')
    assert.equal(await page.locator('#probe-hide-in-pwa').isVisible(), true)
    // Chromium cannot emulate display-mode, so the stylesheet is made to read as in the app: each
    // (display-mode: standalone) block applies unconditionally, each (display-mode: browser) block
    // is dropped.
    await page.evaluate(`(() => {
      const applied = []
      function visit(list, owner) {
        for (let index = list.length - 1; index >= 0; index--) {
          const rule = list[index]
          if (rule instanceof CSSMediaRule && /display-mode:\\s*browser/.test(rule.conditionText)) owner.deleteRule(index)
          else if (rule instanceof CSSMediaRule && /display-mode:\\s*standalone/.test(rule.conditionText)) applied.push(...[...rule.cssRules].map((inner) => inner.cssText))
          else if (rule instanceof CSSGroupingRule) visit(rule.cssRules, rule)
        }
      }
      for (const sheet of document.styleSheets) visit(sheet.cssRules, sheet)
      const style = document.createElement('style')
      style.textContent = applied.join('\\n')
      document.head.append(style)
    })()`)
    assert.equal(await page.locator('details.pwa__instructions').isVisible(), false)
    assert.equal(await page.locator('#probe-hide-in-pwa').isVisible(), false)
    assert.equal(await page.locator('#probe-hide-in-browser').isVisible(), true)
    const display = (id: string) => page.evaluate(`getComputedStyle(document.querySelector('${id}')).display`)
    assert.equal(await display('#probe-hide-in-browser'), await display('#probe-plain'), 'keeps the display its other classes give it')
    assert.equal(await page.locator('#probe-hide-in-ios-pwa').isVisible(), true, 'only iOS’s WebKit hides it')
    assert.deepEqual(tab.problems, [])
  })
})
