import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import type { Browser, Locator, Page } from 'playwright-core'
import { chromiumAvailable, DESKTOP, openTab, PHONE, screenshot, type Tab } from './support/browser.ts'
import type { Campfire } from './support/campfire.ts'
import { signedInTabs } from './support/signed-in.ts'

// The page's own globals, for the callbacks run inside it (the tests are typed without the DOM library).
declare const document: any, NodeFilter: any
declare function getComputedStyle(element: unknown, pseudo?: string): any
type HTMLElement = any
type HTMLInputElement = any
type DOMRect = any

// The Ping strip at the top of the sidebar and the search page, as David and Lonely Lou (who has
// pinged nobody, so everyone is a placeholder) see them.
describe('the Ping strip and search', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  const people = signedInTabs(['david@37signals.com', 'lou@example.com'])
  let campfire: Campfire
  let browser: Browser
  let david: Tab
  let lou: Tab
  before(() => {
    ;({ campfire, browser } = people)
    ;[david, lou] = people.tabs as [Tab, Tab]
  })

  // Where the words of a tile's label are drawn (the screen-reader words left out).
  const labelText = (tile: Locator) =>
    tile.evaluate((element) => {
      const walker = document.createTreeWalker(element.querySelector('.direct__author')!, NodeFilter.SHOW_TEXT)
      const rects: DOMRect[] = []
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.parentElement!.closest('.for-screen-reader') || node.textContent!.trim() === '') continue
        const range = document.createRange()
        range.selectNodeContents(node)
        rects.push(range.getBoundingClientRect())
      }
      return { text: element.querySelector('.direct__author')!.textContent!.replace(/\s+/g, ' ').trim(), top: rects[0]!.top, height: rects[0]!.height, background: getComputedStyle(element).backgroundColor }
    })

  test('tells two people with one first name apart, and draws the people not yet pinged without a grey box', async () => {
    await lou.page.goto('/searches')
    const tiles = lou.page.locator('#sidebar .directs .direct')
    await tiles.first().waitFor()
    // The sidebar's frames settle first: a tile replaced while it is read has no style.
    await lou.page.waitForFunction("!document.querySelector('turbo-frame[busy], turbo-frame[aria-busy]')")
    const labels = await Promise.all((await tiles.all()).map(labelText))
    const names = labels.map((label) => label.text.replace(/^(New|Start a ping with|Ping with) /, ''))
    assert.ok(names.includes('Jason F.') && names.includes('Jason Z.'), `Jason Fried and Jason Zimdars apart: ${names.join(', ')}`)
    assert.ok(names.includes('Kevin'), 'a first name nobody shares stays as it is')
    for (const label of labels.slice(1)) assert.equal(label.background, 'rgba(0, 0, 0, 0)', `${label.text} sits on nothing`)
  })

  test('lines the Ping label up with the people beside it', async () => {
    const tiles = lou.page.locator('#sidebar .directs .direct')
    const [ping, ...people] = await Promise.all((await tiles.all()).map(labelText))
    assert.match(ping!.text, /Ping$/)
    for (const person of people) {
      assert.equal(ping!.top, person.top, `“Ping” and “${person.text}” start on one line`)
      assert.equal(ping!.height, person.height, `“Ping” and “${person.text}” are one size`)
    }
  })

  test('fades the strip at the edge with more people beyond it, and at the start once scrolled', async () => {
    const strip = lou.page.locator('#sidebar .directs')
    const { scrollWidth, clientWidth } = await strip.evaluate((element) => ({ scrollWidth: element.scrollWidth, clientWidth: element.clientWidth }))
    assert.ok(scrollWidth > clientWidth, 'more people than fit')
    const mask = () => strip.evaluate((element) => getComputedStyle(element).maskImage)
    assert.match(await mask(), /^linear-gradient\(to right, rgb\(0, 0, 0\) .*rgba\(0, 0, 0, 0\)\)$/, 'fades out at the end only')
    await strip.evaluate((element) => element.scrollTo({ left: element.scrollWidth }))
    await lou.page.waitForFunction(() => /^linear-gradient\(to right, rgba\(0, 0, 0, 0\), rgb\(0, 0, 0\) [\d.]+px\)$/.test(getComputedStyle(document.querySelector('#sidebar .directs')!).maskImage))
    const last = await strip.locator('.direct').last().boundingBox()
    const box = (await strip.boundingBox())!
    assert.ok(last!.x + last!.width <= box.x + box.width + 1, 'the last person can be scrolled into view')
    await screenshot(lou.page, 'sidebar-pings-scrolled-desktop-light')
    assert.deepEqual(lou.problems, [])
  })

  const visibleWithText = (page: Page, selector: string, text: string) =>
    page.evaluate(([selector, text]) => [...document.querySelectorAll(selector!)].filter((element) => element.checkVisibility() && element.textContent!.includes(text!)).length, [selector, text])

  test('says what an empty search and a search without matches mean, with a hint', async () => {
    await david.page.goto('/searches')
    await david.page.getByText('Search your messages').waitFor()
    await david.page.getByText('press Enter to find them in every room you are in').waitFor()
    await david.page.getByRole('searchbox', { name: 'search' }).fill('zebracorn')
    await david.page.keyboard.press('Enter')
    await david.page.waitForURL('**/searches?q=zebracorn')
    await david.page.getByText('No messages match “zebracorn”').waitFor()
    await david.page.getByText('Try fewer or different words').waitFor()
  })

  test('shows each recent search once, the current query once, and keeps the room list in the sidebar', async () => {
    await david.page.getByRole('searchbox', { name: 'search' }).fill('reliability')
    await david.page.keyboard.press('Enter')
    await david.page.waitForURL('**/searches?q=reliability')
    await david.page.locator('#search-results .message').first().waitFor()
    assert.equal(await visibleWithText(david.page, 'a, .btn', '“zebracorn”'), 1, 'the recent search once')
    assert.equal(await visibleWithText(david.page, '#nav .btn', '“reliability”'), 1, 'the current query once in the header')
    assert.equal(await david.page.getByText('No messages match').isVisible(), false, 'no empty state beside results')
    const rooms = david.page.locator('#sidebar #shared_rooms .room')
    await rooms.first().waitFor()
    assert.ok(await rooms.filter({ hasText: 'All Talk' }).isVisible(), 'the room list stays in the sidebar')
    assert.deepEqual(david.problems, [])
  })

  // Saves the strip and the search states to tmp/screenshots/ for review.
  test('are drawn at desktop and phone widths, light and dark, without an error', async () => {
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        await tab.context.addCookies(await david.context.cookies())
        await tab.page.goto('/searches')
        await tab.page.getByText('Search your messages').waitFor()
        await screenshot(tab.page, `search-empty-state-${width}-${colorScheme}`)
        await tab.page.goto('/searches?q=zebracorn')
        await tab.page.getByText('No messages match').waitFor()
        await screenshot(tab.page, `search-none-${width}-${colorScheme}`)
        await tab.page.goto('/searches?q=reliability')
        await tab.page.locator('#search-results .message').first().waitFor()
        await screenshot(tab.page, `search-results-${width}-${colorScheme}`)
        if (width === 'phone') {
          await tab.page.getByRole('button', { name: 'Open menu' }).click()
          await tab.page.waitForTimeout(300)
          await screenshot(tab.page, `search-sidebar-phone-${colorScheme}`)
        }
        assert.deepEqual(tab.problems, [], `${width} ${colorScheme}`)
        await tab.context.close()
      }
    }
  })
})
