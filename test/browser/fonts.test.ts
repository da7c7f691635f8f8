import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { chromiumAvailable, launchBrowser, openTab, signIn, waitUntilLive, type Tab } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'

// Noto Color Emoji (like Segoe UI Emoji) has glyphs for the digits, '#', '*' and the space, for
// keycaps. Named in a text stack, it drew "9:05 AM" and "Write a message" with square emoji-font
// digits and spaces wherever no earlier family resolved, as on Debian's chromium with only
// fonts-dejavu and fonts-noto-color-emoji. These checks measure text in the room page's own fonts
// against the same stack with the emoji families taken out, and against the emoji font alone.

// Test files compile without the DOM library, so the page-side code below names what it touches.
interface Probe { textContent: string | null; style: { cssText: string; font: string }; getBoundingClientRect(): { width: number }; remove(): void }
interface Canvas { width: number; height: number; getContext(kind: '2d'): { font: string; textBaseline: string; fillStyle: string; fillText(text: string, x: number, y: number): void; getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray } } | null }
declare const document: {
  fonts: { ready: Promise<unknown>; load(font: string, text?: string): Promise<unknown> }
  body: { append(node: object): void }
  querySelector(selector: string): object | null
  createElement(tag: 'span' | 'code'): Probe
  createElement(tag: 'canvas'): Canvas
}
declare function getComputedStyle(element: object): { fontFamily: string; fontStyle: string; fontWeight: string; fontSize: string }

const EMOJI_FONT = '"Noto Color Emoji"'
const EMOJI_FAMILY = /emoji/i

interface Widths {
  family: string
  page: number
  textOnly: number
  emojiFont: number
}

// Draws `text` in the font of the element `selector` matches, then with that element's family
// list minus its emoji families, then in the emoji font alone, at the element's size and weight,
// and returns the three widths in pixels. (The probe goes in the body, not inside the element, so
// the composer's editor never sees it.)
async function widthsOf(page: Page, selector: string, text: string): Promise<Widths> {
  return page.evaluate(
    async ({ selector, text, emojiFont, emojiFamily }) => {
      await document.fonts.ready
      const host = document.querySelector(selector)
      if (!host) throw new Error(`nothing matches ${selector}`)
      const style = getComputedStyle(host)
      const textFamilies = style.fontFamily
        .split(',')
        .map((name) => name.trim())
        .filter((name) => !new RegExp(emojiFamily, 'i').test(name))
        .join(', ')
      const widths: number[] = []
      for (const family of [style.fontFamily, textFamilies, emojiFont]) {
        const probe = document.createElement('span')
        probe.textContent = text
        probe.style.cssText = 'position: absolute; visibility: hidden; white-space: pre; letter-spacing: normal; word-spacing: normal'
        probe.style.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${family}`
        document.body.append(probe)
        // A locally installed @font-face loads only once some text needs it.
        await document.fonts.load(probe.style.font, text).catch(() => [])
        widths.push(probe.getBoundingClientRect().width)
        probe.remove()
      }
      return { family: style.fontFamily, page: widths[0]!, textOnly: widths[1]!, emojiFont: widths[2]! }
    },
    { selector, text, emojiFont: EMOJI_FONT, emojiFamily: EMOJI_FAMILY.source },
  )
}

// How many clearly coloured (not grey) pixels `text` leaves when drawn in black at 48px in the font
// of the element `selector` matches: none for a monochrome glyph, many for a colour emoji.
async function colouredPixels(page: Page, selector: string, text: string): Promise<number> {
  return page.evaluate(
    async ({ selector, text }) => {
      const family = getComputedStyle(document.querySelector(selector)!).fontFamily
      await document.fonts.load(`48px ${family}`, text)
      const canvas = document.createElement('canvas')
      canvas.width = canvas.height = 128
      const context = canvas.getContext('2d')!
      context.font = `48px ${family}`
      context.textBaseline = 'top'
      context.fillStyle = '#000'
      context.fillText(text, 4, 4)
      const pixels = context.getImageData(0, 0, 128, 128).data
      let coloured = 0
      for (let i = 0; i < pixels.length; i += 4) {
        if (pixels[i + 3]! > 0 && Math.max(pixels[i]!, pixels[i + 1]!, pixels[i + 2]!) - Math.min(pixels[i]!, pixels[i + 1]!, pixels[i + 2]!) > 60) coloured++
      }
      return coloured
    },
    { selector, text },
  )
}

async function openRoom(t: Parameters<typeof startCampfire>[0]): Promise<Tab> {
  const campfire = await startCampfire(t)
  const browser = await launchBrowser(t)
  const tab = await openTab(browser, campfire.baseUrl)
  await signIn(tab, 'david@37signals.com')
  await tab.page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
  await waitUntilLive(tab.page)
  await tab.page.locator('#message-area .boost').first().waitFor()
  return tab
}

describe('fonts on the room page', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('draws digits, spaces, hashes and asterisks in the text font, not the emoji font', async (t) => {
    const tab = await openRoom(t)
    const { page } = tab
    // Somewhere to read the code font from, should the room hold no code.
    await page.evaluate(() => document.querySelector('code') ?? document.body.append(document.createElement('code')))

    const failures: string[] = []
    const measured: Record<string, Widths> = {}
    for (const [what, selector, text] of [
      ['ten zeros in the page text', 'body', '0000000000'],
      ['ten spaces in the page text', 'body', '          '],
      ['hashes and asterisks in the page text', 'body', '#*#*#*#*#*'],
      ['ten zeros in a message', '#message-area .message__body', '0000000000'],
      ['ten spaces in a message', '#message-area .message__body', '          '],
      ['a time in a message', '#message-area .message__timestamp', '9:05 AM'],
      ['ten zeros in the composer', '#composer [contenteditable="true"]', '0000000000'],
      ['ten spaces in the composer', '#composer [contenteditable="true"]', '          '],
      ['ten zeros in code', 'code', '0000000000'],
      ['ten spaces in code', 'code', '          '],
    ] as const) {
      const widths = (measured[what] = await widthsOf(page, selector, text))
      // Where the emoji font would draw the same width, the check below would prove nothing.
      assert.ok(Math.abs(widths.emojiFont - widths.textOnly) > 5, `${what}: the emoji font and the text font should differ (${JSON.stringify(widths)})`)
      if (Math.abs(widths.page - widths.textOnly) >= 0.5) {
        failures.push(`${what} should be ${widths.textOnly}px wide as in the text font, not ${widths.emojiFont}px as in the emoji font, but was ${widths.page}px in ${widths.family}`)
      }
    }
    t.diagnostic(JSON.stringify(Object.fromEntries(Object.entries(measured).map(([what, w]) => [what, { page: w.page, textOnly: w.textOnly, emojiFont: w.emojiFont }]))))
    assert.deepEqual(failures, [])
    assert.deepEqual(tab.problems, [])
  })

  test('still draws emoji from the colour emoji font, in messages and boosts', async (t) => {
    const tab = await openRoom(t)
    const { page } = tab
    for (const [selector, text] of [
      ['#message-area .message__body', '👍🔥'],
      ['#message-area .boost [data-boost-delete-target="content"]', (await page.locator('#message-area .boost [data-boost-delete-target="content"]').first().textContent())!.trim()],
      ['#message-area .message__body', '1️⃣#️⃣🇩🇰'],
    ] as const) {
      const widths = await widthsOf(page, selector, text)
      t.diagnostic(`${text} in ${selector}: ${JSON.stringify(widths)}`)
      assert.ok(Math.abs(widths.page - widths.emojiFont) < 0.5, `"${text}" should be ${widths.emojiFont}px wide as in the emoji font, but was ${widths.page}px in ${widths.family}`)
      const coloured = await colouredPixels(page, selector, text)
      assert.ok(coloured > 30, `"${text}" should be drawn in colour, but only ${coloured} pixels were coloured`)
    }
    assert.deepEqual(tab.problems, [])
  })
})
