import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { chromiumAvailable, DESKTOP, launchBrowser, openTab, PHONE, screenshot, signIn, waitUntilLive } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'

// Upstream's New Ping picker as the harness's browser flow drives it: type part of a name, click
// the <suggestion-option> holding that name inside upstream's <suggestion-select>, press
// "Start Ping", and land in the Ping.
async function pick(page: Page, typed: string, name: string): Promise<void> {
  await page.getByRole('combobox', { name: 'People to ping' }).fill(typed)
  const option = page.locator('suggestion-select suggestion-option', { hasText: name })
  await option.waitFor()
  assert.equal(await option.getAttribute('role'), 'option')
  assert.match((await option.getAttribute('value')) ?? '', /^\d+$/)
  await option.click()
  await page.locator('.autocomplete__pill', { hasText: name }).waitFor()
}

describe('the New Ping picker in a real browser', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('clicking a suggestion-option by name selects that person, and Start Ping lands in the Ping', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const tab = await openTab(browser, campfire.baseUrl)
    const { page } = tab
    await signIn(tab, 'david@37signals.com')
    await page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
    await waitUntilLive(page)

    await page.locator('#user_sidebar a.direct__new').click()
    await pick(page, 'Kev', 'Kevin McConnell')
    const chosen = await page.locator('select[data-autocomplete-target="select"] option').evaluateAll((options) => options.map((o) => [(o as unknown as { text: string }).text, (o as unknown as { selected: boolean }).selected]))
    assert.deepEqual(chosen, [['Kevin McConnell', true]])

    await Promise.all([page.waitForURL(/\/rooms\/\d+$/), page.getByRole('button', { name: 'Start Ping' }).click()])
    await page.locator('#nav h1', { hasText: 'Kevin McConnell' }).waitFor()
    assert.deepEqual(tab.problems, [])
  })

  test('the full page /rooms/directs/new is a titled page with a focused, labelled field that starts a Ping', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const tab = await openTab(browser, campfire.baseUrl)
    const { page } = tab
    await signIn(tab, 'david@37signals.com')
    await page.goto('/rooms/directs/new')
    await page.getByRole('heading', { name: 'New Ping', level: 1 }).waitFor()
    assert.equal(await page.evaluate('document.activeElement?.id'), 'rooms_direct_user_ids_input')
    await pick(page, 'jason', 'Jason Zimdars')
    await pick(page, 'kev', 'Kevin McConnell')
    await Promise.all([page.waitForURL(/\/rooms\/\d+$/), page.getByRole('button', { name: 'Start Ping' }).click()])
    await page.locator('#nav h1', { hasText: 'Jason Zimdars' }).waitFor()
    assert.deepEqual(tab.problems, [])
  })

  test('suggestions sit on one line each below the field without covering the hint, chips show whole names, at desktop and phone widths, light and dark', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        const { page } = tab
        await signIn(tab, 'david@37signals.com')
        await page.goto('/rooms/directs/new')
        const input = page.getByRole('combobox', { name: 'People to ping' })
        await input.fill('jason')
        const options = page.locator('suggestion-option')
        await options.nth(1).waitFor()
        for (const option of await options.all()) {
          const box = (await option.boundingBox())!
          const line = await option.locator('.autocompletable__name').evaluate((el) => el.getBoundingClientRect().height || 20)
          assert.ok(box.height < line * 1.9, `${await option.textContent()} fits on one line (${box.height}px)`)
        }
        const list = (await page.locator('suggestion-select').boundingBox())!
        const hint = (await page.locator('#rooms_direct_hint').boundingBox())!
        assert.ok(hint.y >= list.y + list.height, 'the hint is below the suggestions, not under them')
        await screenshot(page, `new-ping-suggestions-${width}-${colorScheme}`)
        await options.filter({ hasText: 'Jason Zimdars' }).click()
        const label = page.locator('.autocomplete__pill [data-content="label"]')
        assert.equal(await label.evaluate((el) => el.scrollWidth <= el.clientWidth + 1), true, 'the chip shows the whole name')
        const start = (await page.getByRole('button', { name: 'Start Ping' }).boundingBox())!
        assert.ok(start.height <= 48, `Start Ping is a normal button (${start.height}px tall)`)
        await screenshot(page, `new-ping-chosen-${width}-${colorScheme}`)
        assert.deepEqual(tab.problems, [])
        await tab.context.close()
      }
    }
  })
})
