import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Locator, Page } from 'playwright-core'
import { chromiumAvailable, DESKTOP, holdNotices, launchBrowser, openTab, PHONE, screenshot, sendMessage, signIn, waitUntilLive } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'

// The page's own globals, for the callbacks run inside it (the tests are typed without the DOM library).
declare const document: any
declare function getComputedStyle(element: unknown): any
type Box = { x: number; y: number; width: number; height: number }
const inside = (inner: Box, outer: Box) => inner.x >= outer.x - 0.5 && inner.y >= outer.y - 0.5 && inner.x + inner.width <= outer.x + outer.width + 0.5 && inner.y + inner.height <= outer.y + outer.height + 0.5
const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
const SIZES = [['desktop', DESKTOP], ['phone', PHONE]] as const
const SCHEMES = ['light', 'dark'] as const

async function pick(page: Page, scope: string, typed: string, name: string): Promise<void> {
  await page.locator(`${scope} [role="combobox"]`).fill(typed)
  await page.locator(`${scope} suggestion-option`, { hasText: name }).click()
  await page.locator(`${scope} .autocomplete__pill`, { hasText: name }).waitFor()
}

// Small things a person sees at a glance, each at desktop and phone sizes, in light and dark.
describe('the details of the page, in a real browser', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('your own full-width message keeps its whole menu in view', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    for (const colorScheme of SCHEMES) {
      const tab = await openTab(browser, campfire.baseUrl, { colorScheme })
      const { page } = tab
      await signIn(tab, 'david@37signals.com')
      await page.goto(`/rooms/${campfire.labels['rooms.pets']}`)
      await waitUntilLive(page)
      await sendMessage(page, `My own long message in ${colorScheme}, long enough to fill the whole width of the room from one side to the other and then keep going a while.`)
      const mine = page.locator('#message-area .message--me[data-message-id]', { hasText: `in ${colorScheme}, long enough` })
      await mine.waitFor()
      await mine.hover()
      await mine.locator('.message__options-btn').click()
      const menu = mine.locator('.message__actions-menu')
      await menu.waitFor()
      const area = (await settledBox(page.locator('#message-area .messages')))
      assert.ok(inside((await settledBox(mine.locator('.message__options-btn'))), area), 'the … button is in view')
      assert.ok(inside((await settledBox(menu)), area), `the menu is in view (${JSON.stringify(await menu.boundingBox())} in ${JSON.stringify(area)})`)
      await screenshot(page, `own-message-menu-desktop-${colorScheme}`)
      assert.deepEqual(tab.problems, [])
      await tab.context.close()
    }
  })

  test('New Ping with two and three people: each remove button stays inside its chip, clear of Start Ping', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    for (const [width, viewport] of SIZES) {
      for (const colorScheme of SCHEMES) {
        for (const place of ['sidebar', 'page'] as const) {
          const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
          const { page } = tab
          await signIn(tab, 'david@37signals.com')
          if (place === 'page') await page.goto('/rooms/directs/new')
          else {
            await page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
            await waitUntilLive(page)
            if (width === 'phone') await page.getByRole('button', { name: 'Open menu' }).click()
            await page.locator('#user_sidebar a.direct__new').click()
          }
          const scope = place === 'page' ? 'main' : '#user_sidebar'
          for (const [typed, name, count] of [['Jason F', 'Jason Fried', 1], ['Kev', 'Kevin McConnell', 2], ['Zimd', 'Jason Zimdars', 3]] as const) {
            await pick(page, scope, typed, name)
            if (count < 2) continue
            const start = (await settledBox(page.locator(`${scope} .btn--start-ping`)))
            for (const chip of await page.locator(`${scope} .autocomplete__pill`).all()) {
              const remove = (await settledBox(chip.locator('button')))
              assert.ok(inside(remove, (await settledBox(chip))), `${await chip.innerText()}: the remove button is inside its chip`)
              assert.ok(!overlap(remove, start), `${await chip.innerText()}: the remove button is clear of Start Ping`)
            }
            await screenshot(page, `new-ping-${count}-people-${place}-${width}-${colorScheme}`)
          }
          assert.deepEqual(tab.problems, [])
          await tab.context.close()
        }
      }
    }
  })

  test('a Ping tile for two people shows two round faces with whole initials', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const setup = await openTab(browser, campfire.baseUrl)
    await signIn(setup, 'david@37signals.com')
    await setup.page.goto('/rooms/directs/new')
    await pick(setup.page, 'main', 'Jason F', 'Jason Fried')
    await pick(setup.page, 'main', 'Kev', 'Kevin McConnell')
    await Promise.all([setup.page.waitForURL(/\/rooms\/\d+$/), setup.page.getByRole('button', { name: 'Start Ping' }).click()])
    const roomId = /\/rooms\/(\d+)$/.exec(setup.page.url())![1]
    await setup.context.close()
    for (const [width, viewport] of SIZES) {
      for (const colorScheme of SCHEMES) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        const { page } = tab
        await signIn(tab, 'david@37signals.com')
        await page.goto(`/rooms/${campfire.labels['rooms.hq']}`)
        await waitUntilLive(page)
        if (width === 'phone') await page.getByRole('button', { name: 'Open menu' }).click()
        const faces = page.locator(`#user_sidebar a.direct[data-room-id="${roomId}"] .avatar__group img`)
        await faces.nth(1).waitFor()
        assert.equal(await faces.count(), 2)
        for (const face of await faces.all()) {
          const box = await settledBox(face)
          assert.ok(Math.abs(box.width - box.height) < 1, `a round face, not an ellipse (${box.width}×${box.height})`)
          assert.ok(box.width >= 20, `large enough for its initials (${box.width} px)`)
        }
        await page.waitForTimeout(300)
        await screenshot(page, `ping-tile-two-people-${width}-${colorScheme}`)
        assert.deepEqual(tab.problems, [])
        await tab.context.close()
      }
    }
  })

  test('Ping settings: a titled page with faces filling their cards', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    for (const [width, viewport] of SIZES) {
      for (const colorScheme of SCHEMES) {
        for (const ping of ['david_and_jason', 'group'] as const) {
          const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
          const { page } = tab
          await signIn(tab, 'david@37signals.com')
          await page.goto(`/rooms/directs/${campfire.labels[`rooms.${ping}`]}/edit`)
          await page.getByRole('heading', { level: 1, name: /^Ping with / }).waitFor()
          for (const card of await page.locator('.ping-member').all()) {
            const face = (await settledBox(card.locator('img')))
            const box = (await settledBox(card))
            assert.ok(face.width >= 80 && face.width >= box.width * 0.3, `a large face (${face.width} px in a ${box.width} px card)`)
          }
          await screenshot(page, `ping-settings-${ping}-${width}-${colorScheme}`)
          assert.deepEqual(tab.problems, [])
          await tab.context.close()
        }
      }
    }
  })

  test('the Everyone row lines up with the people in room settings and the new-room forms', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const pages = { 'room-settings': `/rooms/closeds/${campfire.labels['rooms.watercooler']}/edit`, 'new-open-room': '/rooms/opens/new', 'new-closed-room': '/rooms/closeds/new' }
    for (const [width, viewport] of SIZES) {
      for (const colorScheme of SCHEMES) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        const { page } = tab
        await signIn(tab, 'david@37signals.com')
        for (const [name, path] of Object.entries(pages)) {
          await page.goto(path)
          const everyone = page.locator('.room-access__everyone')
          const person = page.locator('.room-access__person:not(.room-access__everyone)').first()
          const [icon, face] = [(await settledBox(everyone.locator('.avatar'))), (await settledBox(person.locator('.avatar').first()))]
          const [word, name_] = [(await settledBox(everyone.locator('.room-access__name'))), (await settledBox(person.locator('.room-access__name')))]
          assert.ok(Math.abs(icon.x - face.x) <= 1 && Math.abs(icon.width - face.width) <= 1, `${name}: the icon sits where the faces are (${icon.x} vs ${face.x})`)
          assert.ok(Math.abs(word.x - name_.x) <= 1, `${name}: "Everyone" starts where the names do (${word.x} vs ${name_.x})`)
          await screenshot(page, `everyone-row-${name}-${width}-${colorScheme}`)
        }
        assert.deepEqual(tab.problems, [])
        await tab.context.close()
      }
    }
  })

  test('a notice after a redirect sits below the nav on a phone, leaving its buttons in reach', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    for (const [width, viewport] of SIZES) {
      for (const colorScheme of SCHEMES) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        const { page } = tab
        await holdNotices(page)
        await signIn(tab, 'jason@37signals.com')
        await page.goto(`/rooms/${campfire.labels['rooms.quiet_corner']}`)
        const notice = page.locator('.flash', { hasText: 'Room not found or inaccessible' })
        await notice.waitFor()
        const box = (await notice.boundingBox())!
        for (const button of await page.locator('#nav a, #nav button').all()) {
          if (!(await button.isVisible())) continue
          assert.ok(!overlap(box, (await button.boundingBox())!), `the notice leaves ${await button.innerText() || await button.getAttribute('href')} uncovered`)
        }
        assert.ok(box.x >= 0 && box.x + box.width <= viewport.width, 'the notice fits the screen')
        await screenshot(page, `notice-below-nav-${width}-${colorScheme}`)
        await tab.context.close()
      }
    }
  })

  test('with reduced motion a notice still stays long enough to read, and appears and goes without moving', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const tab = await openTab(browser, campfire.baseUrl, { viewport: PHONE })
    const { page } = tab
    await page.emulateMedia({ reducedMotion: 'reduce' })
    await holdNotices(page)
    await signIn(tab, 'jason@37signals.com')
    await page.goto(`/rooms/${campfire.labels['rooms.quiet_corner']}`)
    const notice = page.locator('.flash', { hasText: 'Room not found or inaccessible' })
    await notice.waitFor()
    const animation = await notice.evaluate((el: any) => ({
      duration: (globalThis as any).getComputedStyle(el).animationDuration,
      moves: el.getAnimations()[0].effect.getKeyframes().some((frame: object) => 'translate' in frame || 'transform' in frame),
    }))
    assert.deepEqual(animation, { duration: '4s', moves: false })
    assert.deepEqual(tab.problems, [])
    await tab.context.close()
  })

  test('error pages and /account/users: the app’s fonts, and the account page for a person who opens the list’s address', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    for (const [width, viewport] of SIZES) {
      for (const colorScheme of SCHEMES) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        const { page } = tab
        await signIn(tab, 'david@37signals.com')
        const appFont = (await page.evaluate(() => getComputedStyle(document.body).fontFamily)).replace(/, "Campfire Emoji"$/, '')
        await page.goto('/no-such-page')
        assert.equal(await page.evaluate(() => getComputedStyle(document.body).fontFamily), appFont)
        await screenshot(page, `error-404-${width}-${colorScheme}`)
        await page.goto('/account/users')
        assert.equal(new URL(page.url()).pathname, '/account/edit')
        await page.locator('#account_users li', { hasText: 'Kevin McConnell' }).first().waitFor()
        await screenshot(page, `account-users-opened-${width}-${colorScheme}`)
        await tab.context.close()
      }
    }
  })
})

// The element's box once it has one: the sidebar's reload on connecting may be replacing it.
async function settledBox(element: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  for (const started = Date.now(); Date.now() - started < 10_000; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const box = await element.boundingBox().catch(() => null)
    if (box) return box
  }
  throw new Error('the element never had a box')
}
