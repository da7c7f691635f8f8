import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { chromiumAvailable, DESKTOP, openTab, PHONE, screenshot, sendMessage, waitUntilLive, type Tab } from './support/browser.ts'
import type { Campfire } from './support/campfire.ts'
import { signedInTabs } from './support/signed-in.ts'

// The page's own globals, for the callbacks run inside it (the tests are typed without the DOM library).
declare const document: any, NodeFilter: any
declare function getComputedStyle(element: unknown, pseudo?: string): any
type HTMLElement = any
type HTMLInputElement = any
type DOMRect = any

// The smaller things a new person notices: the error page, our accent where the browser's blue
// was, a touch target on a phone, a new room, a long name on a phone, and Tab stops in forms.
describe('the finishing touches', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  const people = signedInTabs(['david@37signals.com', 'kevin@37signals.com'])
  let campfire: Campfire
  let browser: Browser
  let david: Tab
  let kevin: Tab
  before(() => {
    ;({ campfire, browser } = people)
    ;[david, kevin] = people.tabs as [Tab, Tab]
  })

  // A colour as the page computes it from our palette's custom property.
  const paletteColour = (page: Page, property: string) =>
    page.evaluate((property) => {
      const probe = document.createElement('div')
      probe.style.backgroundColor = `var(${property})`
      document.body.append(probe)
      const colour = getComputedStyle(probe).backgroundColor
      probe.remove()
      return colour
    }, property)

  // Whether the highlighted item (redrawn as results arrive) settles on our soft accent.
  const highlightedInAccent = (page: Page, selector: string) =>
    page
      .waitForFunction((selector) => {
        const element = document.querySelector(selector)
        if (!element) return false
        const probe = document.createElement('div')
        probe.style.backgroundColor = 'var(--color-accent-soft)'
        document.body.append(probe)
        const accent = getComputedStyle(probe).backgroundColor
        probe.remove()
        return getComputedStyle(element).backgroundColor === accent
      }, selector, { timeout: 5_000 })
      .then(() => true, () => false)

  test('draws the 403 page in our colours, light and dark, with the reason as its heading and a way back', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const tab = await openTab(browser, campfire.baseUrl, { colorScheme })
      await tab.context.addCookies(await kevin.context.cookies())
      const response = await tab.page.goto('/account/bots')
      assert.equal(response!.status(), 403)
      await tab.page.getByRole('heading', { level: 1, name: 'You are not allowed to do that.' }).waitFor()
      const link = tab.page.getByRole('link', { name: 'Back to Campfire' })
      const look = await tab.page.evaluate(() => ({ background: getComputedStyle(document.body).backgroundColor, font: getComputedStyle(document.body).fontFamily }))
      const linkLook = await link.evaluate((element) => ({ radius: parseFloat(getComputedStyle(element).borderRadius), underline: getComputedStyle(element).textDecorationLine }))
      assert.notEqual(look.background, 'rgba(0, 0, 0, 0)', 'a page colour of its own')
      const lightness = Number(/^oklch\(([\d.]+)/.exec(look.background)?.[1] ?? NaN)
      if (colorScheme === 'dark') assert.ok(lightness < 0.3, `dark in dark mode (${look.background})`)
      else assert.ok(lightness > 0.9, `light in light mode (${look.background})`)
      assert.doesNotMatch(look.font, /^Times|^serif/)
      assert.ok(linkLook.radius > 10 && linkLook.underline === 'none', 'the way back is a button')
      await screenshot(tab.page, `error-403-desktop-${colorScheme}`)
      await tab.context.close()
    }
  })

  test('colours Turbo’s progress bar and the highlighted suggestion in our accent', async () => {
    const { page } = david
    await page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
    await waitUntilLive(page)
    // Turbo puts its own style (a blue bar) first in the head when the bar first shows.
    const bar = await page.evaluate(() => {
      const turbo = document.createElement('style')
      turbo.textContent = '.turbo-progress-bar { position: fixed; display: block; top: 0; left: 0; height: 3px; background: #0076ff; }'
      document.head.prepend(turbo)
      const element = document.createElement('div')
      element.className = 'turbo-progress-bar'
      document.documentElement.append(element)
      const colour = getComputedStyle(element).backgroundColor
      element.remove()
      turbo.remove()
      return colour
    })
    assert.equal(bar, await paletteColour(page, '--color-accent'))

    const editor = page.getByRole('textbox', { name: 'Write a message' })
    await editor.click()
    await editor.pressSequentially('@Kev')
    await page.locator('.lexxy-prompt-menu--visible .lexxy-prompt-menu__item[aria-selected]').waitFor()
    assert.equal(await highlightedInAccent(page, '.lexxy-prompt-menu--visible .lexxy-prompt-menu__item[aria-selected]'), true, 'the mention suggestion')
    await page.keyboard.press('Escape')
    await page.keyboard.press('ControlOrMeta+a')
    await page.keyboard.press('Backspace')

    await page.goto('/rooms/directs/new')
    await page.getByRole('combobox', { name: 'People to ping' }).fill('jason')
    await page.locator('suggestion-option[selected]').waitFor()
    assert.equal(await highlightedInAccent(page, 'suggestion-option[selected]'), true, 'the New Ping suggestion')

  })

  test('gives the message menu a 44 px touch area on a phone without covering the time beside it', async () => {
    const tab = await openTab(browser, campfire.baseUrl, { viewport: PHONE })
    await tab.context.addCookies(await david.context.cookies())
    const { page } = tab
    await page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
    await waitUntilLive(page)
    for (const message of [page.locator('#message-area .message:not(.message--me)[data-message-id]').nth(-2), page.locator('#message-area .message.message--me[data-message-id]').nth(-2)]) {
      const button = message.locator('.message__options-btn')
      await button.evaluate((element) => element.scrollIntoView({ block: 'center', behavior: 'instant' }))
      const box = (await button.boundingBox())!
      const [x, y] = [box.x + box.width / 2, box.y + box.height / 2]
      const hits = await page.evaluate(({ points }) => points.map(([px, py]) => !!document.elementFromPoint(px!, py!)?.closest('.message__options-btn') || document.elementFromPoint(px!, py!)?.outerHTML.slice(0, 120)), {
        points: [[x, y - 21], [x, y + 21], [box.x - 1, y], [box.x + box.width + 1, y]].filter(([, py]) => py! > 60),
      })
      const reach = await button.evaluate((element) => {
        const after = getComputedStyle(element, '::after')
        const rect = element.getBoundingClientRect()
        return { width: rect.width - parseFloat(after.insetInlineStart) - parseFloat(after.insetInlineEnd), height: rect.height - parseFloat(after.insetBlockStart) - parseFloat(after.insetBlockEnd) }
      })
      assert.ok(reach.width >= 44 && reach.height >= 44, `touch area ${reach.width}×${reach.height}px`)
      assert.ok(hits.every(Boolean), `a touch just outside the drawn button still opens it (${hits})`)
      const time = message.locator('.message__timestamp')
      const timeBox = (await time.boundingBox())!
      assert.equal(await page.evaluate(([tx, ty]) => !!document.elementFromPoint(tx!, ty!)?.closest('.message__timestamp'), [timeBox.x + timeBox.width / 2, timeBox.y + timeBox.height / 2]), true, 'the time stays touchable')
    }
    await tab.context.close()
  })

  test('says a new room is empty until its first message arrives', async () => {
    const { page } = david
    const fresh = await page.evaluate(async () => {
      const response = await fetch('/rooms/opens', { method: 'POST', body: new URLSearchParams({ 'room[name]': 'Brand new' }) })
      return new URL(response.url).pathname
    })
    await page.goto(fresh)
    await waitUntilLive(page)
    const empty = page.getByText('Nothing in Brand new yet')
    await empty.waitFor()
    assert.ok(await page.getByText('Write the first message below').isVisible())
    await screenshot(page, 'room-empty-desktop-light')
    await sendMessage(page, 'First!')
    await empty.waitFor({ state: 'hidden' })
  })

  test('shows a whole name in the profile on a phone, and takes one Tab per field past the translate globes', async () => {
    const tab = await openTab(browser, campfire.baseUrl, { viewport: PHONE })
    await tab.context.addCookies(await david.context.cookies())
    const { page } = tab
    await page.goto('/users/me/profile')
    const name = page.locator('#user_name')
    assert.equal(await name.inputValue(), 'David Heinemeier Hansson')
    assert.ok(await name.evaluate((element) => (element as HTMLInputElement).scrollWidth <= (element as HTMLInputElement).clientWidth), 'the name is not clipped')
    await screenshot(page, 'profile-name-phone-light')
    await name.focus()
    await page.keyboard.press('Tab')
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'user_email_address', 'from the name straight to the email')
    await page.keyboard.press('Tab')
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'user_password')
    assert.equal(await page.locator('summary.translation__btn').count() > 2, true, 'the globes are still there to click')
    await tab.context.close()
  })

  test('never shows “Campfire version 0”', async () => {
    const tab = await openTab(browser, campfire.baseUrl, { viewport: DESKTOP })
    await tab.page.goto('/session/new')
    const version = await tab.page.getByText(/Campfire( TS)? version/).innerText()
    assert.match(version, /version \S+/)
    assert.doesNotMatch(version, /version 0$/)
    await tab.context.close()
    assert.deepEqual([...david.problems, ...kevin.problems.filter((problem) => !problem.includes('HTTP 403'))], [])
  })
})
