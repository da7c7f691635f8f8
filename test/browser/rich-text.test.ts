import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import sharp from 'sharp'
import type { Locator } from 'playwright-core'
import { chromiumAvailable, DESKTOP, launchBrowser, openTab, PHONE, screenshot, signIn, waitUntilLive } from './support/browser.ts'
import { startCampfire, type Campfire } from './support/campfire.ts'
import { WIDE_CODE } from './support/code.ts'

// The page's own globals, for the callbacks run inside it (the tests are typed without the DOM library).
declare const document: any
type HTMLElement = any


async function postAsBot(campfire: Campfire, body: string): Promise<void> {
  const { labels } = campfire
  const response = await fetch(`${campfire.baseUrl}/rooms/${labels['rooms.watercooler']}/${labels['bot_keys.bender']}/messages`, { method: 'POST', body })
  assert.equal(response.status, 201, await response.text())
}

// How far a pixel of the element's picture is from another (sum of the RGB differences).
async function pixels(block: Locator): Promise<(x: number, y: number) => number[]> {
  const { data, info } = await sharp(await block.screenshot()).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  return (x, y) => {
    const at = (Math.round(y) * info.width + Math.round(x < 0 ? info.width + x : x)) * info.channels
    return [data[at]!, data[at + 1]!, data[at + 2]!]
  }
}
const distance = (a: number[], b: number[]) => a.reduce((sum, value, i) => sum + Math.abs(value - b[i]!), 0)

describe('rich text in messages, in a real browser', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('a code block wider than its bubble scrolls with the keyboard, and on a phone a shadow at the edge shows more is there', async (t) => {
    const campfire = await startCampfire(t)
    await postAsBot(campfire, WIDE_CODE)
    const browser = await launchBrowser(t)
    for (const colorScheme of ['light', 'dark'] as const) {
      const tab = await openTab(browser, campfire.baseUrl, { viewport: PHONE, colorScheme })
      const { page } = tab
      await signIn(tab, 'david@37signals.com')
      await page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
      await waitUntilLive(page)
      const block = page.locator('#message-area .message[data-message-id] pre', { hasText: 'const palette' })
      await block.and(page.locator('pre[data-highlighted]')).waitFor()
      await block.scrollIntoViewIfNeeded()
      assert.ok(await block.evaluate((el: HTMLElement) => el.scrollWidth > el.clientWidth + 50), 'the code is wider than its bubble')
      const handle = await block.elementHandle()
      await page.waitForFunction((el: HTMLElement) => el.getAttribute('tabindex') === '0', handle)

      // At the start: the right edge is shaded, the left is not.
      let pixel = await pixels(block)
      const box = (await block.boundingBox())!
      const background = pixel(box.width / 2, 4)
      assert.ok(distance(pixel(-3, 4), background) > 12, `a shadow at the right edge (${pixel(-3, 4)} against ${background})`)
      assert.ok(distance(pixel(3, 4), background) <= 6, 'none at the left edge')
      await screenshot(page, `code-wide-phone-${colorScheme}`)

      // Tab reaches the block; the arrow keys scroll it to its end, where the shadow moves left.
      await block.focus()
      assert.equal(await block.evaluate((el: HTMLElement) => el === document.activeElement), true, 'the block takes the focus')
      for (let i = 0; i < 60; i++) await page.keyboard.press('ArrowRight')
      await page.keyboard.press('End')
      await page.waitForFunction((el: HTMLElement) => el.scrollLeft + el.clientWidth >= el.scrollWidth - 1, handle)
      pixel = await pixels(block)
      assert.ok(distance(pixel(-3, 4), background) <= 6, 'no shadow at the right edge once scrolled to the end')
      assert.ok(distance(pixel(3, 4), background) > 12, 'a shadow at the left edge instead')
      await screenshot(page, `code-wide-phone-scrolled-${colorScheme}`)

      // On a desktop the same block fits: no extra Tab stop.
      await page.setViewportSize(DESKTOP)
      await page.waitForFunction((el: HTMLElement) => !el.hasAttribute('tabindex'), handle)
      await screenshot(page, `code-wide-desktop-${colorScheme}`)
      assert.deepEqual(tab.problems, [])
      await tab.context.close()
    }
  })

  test('typing ``` then `const x = 1` makes a code block holding `const x = 1` in the editor’s own language, its first line clear of the language picker', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        const { page } = tab
        await signIn(tab, 'david@37signals.com')
        await page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
        await waitUntilLive(page)
        const editor = page.getByRole('textbox', { name: 'Write a message' })
        await editor.click()
        await page.keyboard.type('```const x = 1')
        const code = page.locator('#composer .lexxy-editor__content > code')
        await code.waitFor()
        assert.equal(await code.innerText(), 'const x = 1')
        assert.notEqual(await code.getAttribute('data-language'), 'const', 'the word is code, not a language')
        const picker = page.locator('#composer lexxy-code-language-picker select')
        await picker.waitFor()
        assert.ok(await picker.evaluate((el: any) => el.selectedOptions[0]?.textContent), 'the picker names the block’s language')
        const pickerBox = (await picker.boundingBox())!
        const firstLine = await code.evaluate((el: HTMLElement) => {
          const range = document.createRange()
          range.selectNodeContents(el)
          return range.getClientRects()[0].top
        })
        assert.ok(pickerBox.y + pickerBox.height <= firstLine + 1, `the picker (bottom ${pickerBox.y + pickerBox.height}) is above the first line (${firstLine})`)
        await screenshot(page, `code-fence-composer-${width}-${colorScheme}`)

        if (width === 'desktop' && colorScheme === 'light') {
          await page.getByRole('button', { name: 'Send Message' }).click()
          const sent = page.locator('#message-area .message[data-message-id] pre', { hasText: 'const x = 1' })
          await sent.waitFor()
          assert.equal(await sent.innerText(), 'const x = 1')
          assert.notEqual(await sent.getAttribute('data-language'), 'const')
        }
        assert.deepEqual(tab.problems, [])
        await tab.context.close()
      }
    }
  })

  test('a heading written in a message ranks below the message’s author, so the room has one h1 and no skipped level', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        const { page } = tab
        await signIn(tab, 'david@37signals.com')
        await page.goto(`/rooms/${campfire.labels['rooms.designers']}`)
        await waitUntilLive(page)
        const heading = page.locator('#message-area .trix-content :is(h1, h2, h3, h4, h5, h6)', { hasText: 'Design review' })
        await heading.scrollIntoViewIfNeeded()
        assert.equal(await heading.evaluate((el: HTMLElement) => el.tagName), 'H4')
        assert.deepEqual(await page.getByRole('heading', { level: 1 }).allInnerTexts(), ['Designers'])
        const levels: number[] = await page.evaluate(() => [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].filter((el: HTMLElement) => el.getClientRects().length > 0).map((el: HTMLElement) => Number(el.tagName[1])))
        for (let i = 1; i < levels.length; i++) assert.ok(levels[i]! <= levels[i - 1]! + 1, `heading levels in order: ${levels.join(' ')}`)
        const size = await heading.evaluate((el: HTMLElement) => parseFloat(getComputedStyle(el).fontSize))
        const text = await page.locator('#message-area .trix-content p', { hasText: 'three' }).first().evaluate((el: HTMLElement) => parseFloat(getComputedStyle(el).fontSize))
        assert.ok(size > text * 1.15, 'still drawn as a heading')
        await screenshot(page, `message-heading-${width}-${colorScheme}`)
        assert.deepEqual(tab.problems, [])
        await tab.context.close()
      }
    }
  })
})

declare function getComputedStyle(element: unknown): any
