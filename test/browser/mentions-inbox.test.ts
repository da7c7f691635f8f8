import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { audit, describeFindings, type Finding } from './support/axe.ts'
import { chromiumAvailable, DESKTOP, launchBrowser, openTab, PHONE, screenshot, signIn, waitUntilLive, type Tab } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'

// David mentions Kevin through the composer, as a person does: "@Kev", then the suggestion.
async function mentionKevin(david: Tab, text: string): Promise<void> {
  const editor = david.page.getByRole('textbox', { name: 'Write a message' })
  await editor.click()
  await editor.pressSequentially(`${text} @Kevin M`)
  await david.page.locator('.lexxy-prompt-menu--visible', { hasText: 'Kevin' }).waitFor()
  // The last key once the list is open: keys that land while a loaded page is still drawing it
  // were seen to leave it unfiltered until the next one (once in a CI run).
  await editor.pressSequentially('c')
  await david.page.locator('.lexxy-prompt-menu--visible', { hasText: 'Bender' }).waitFor({ state: 'hidden' })
  await david.page.locator('.lexxy-prompt-menu__item[aria-selected]', { hasText: 'Kevin' }).waitFor()
  await david.page.keyboard.press('Enter')
  await david.page.locator('#composer .mention, #composer action-text-attachment').first().waitFor()
  await david.page.keyboard.press('Enter')
  await david.page.locator('#message-area .message[data-message-id]', { hasText: text }).waitFor()
}

function entry(page: Page, text: string) {
  return page.locator('.inbox__entry', { has: page.locator('.message', { hasText: text }) })
}

describe('the mentions inbox in a real browser', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('a mention arrives live in the open inbox, opens in place, and is dimmed once read: desktop and phone, light and dark', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const david = await openTab(browser, campfire.baseUrl)
    await signIn(david, 'david@37signals.com')
    const hq = campfire.labels['rooms.hq']
    await david.page.goto(`/rooms/${hq}`)
    await waitUntilLive(david.page)
    const findings: Finding[] = []

    for (const [width, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const kevin = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        const { page } = kevin
        await signIn(kevin, 'kevin@37signals.com')
        if (width === 'desktop') {
          await page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
          await page.locator('#user_sidebar a[href="/users/me/mentions"]').click()
          await page.waitForURL(/\/users\/me\/mentions$/)
        } else {
          await page.goto('/users/me/mentions')
        }
        await page.getByRole('heading', { name: 'Mentions', level: 1 }).waitFor()
        await page.locator('#main-content turbo-cable-stream-source[connected]').waitFor({ state: 'attached', timeout: 10000 })

        const text = `Inbox check on a ${width}, ${colorScheme}`
        await mentionKevin(david, text)
        const arrived = entry(page, text)
        await arrived.locator('.message').waitFor()
        assert.equal(await page.locator('.inbox__entry').first().textContent().then((s) => s?.includes(text)), true, 'the newest entry comes first')
        assert.match((await arrived.getAttribute('class')) ?? '', /inbox__entry--unread/)
        const message = arrived.locator('.message')
        await page.waitForFunction((el) => el?.classList.contains('message--formatted') ?? false, await message.elementHandle())
        assert.match((await message.getAttribute('class')) ?? '', /message--mentioned/, 'marked as mentioning the viewer')
        assert.ok(await message.locator('.message__room a').isVisible(), 'the room is shown')
        await screenshot(page, `inbox-live-${width}-${colorScheme}`)
        if (colorScheme === 'light') findings.push(...(await audit(page, `inbox on a ${width}, a live entry`)))
        await page.emulateMedia({ colorScheme })

        const id = await message.getAttribute('data-message-id')
        await Promise.all([page.waitForURL(new RegExp(`/rooms/${hq}/@${id}$`)), message.locator('.message__room a').click()])
        const opened = page.locator(`#message-area [data-message-id="${id}"]`)
        await opened.waitFor()
        await page.waitForFunction(`(() => {
          const box = document.querySelector('#message-area [data-message-id="${id}"]').getBoundingClientRect()
          return box.top >= 0 && box.bottom <= innerHeight
        })()`)
        await screenshot(page, `inbox-opened-${width}-${colorScheme}`)

        await page.goto('/users/me/mentions')
        const read = entry(page, text)
        await read.waitFor()
        assert.match((await read.getAttribute('class')) ?? '', /inbox__entry--read/, 'read once the room was open')
        const readId = await read.locator('.message').getAttribute('data-message-id')
        const looks = await page.evaluate(`(() => {
          const message = document.querySelector('.message[data-message-id="${readId}"]')
          return { bubble: getComputedStyle(message.querySelector('.message__body-content')).backgroundColor, avatar: getComputedStyle(message.querySelector('.message__avatar')).filter }
        })()`)
        assert.deepEqual(looks, { bubble: 'rgba(0, 0, 0, 0)', avatar: 'grayscale(1)' }, 'dimmed: no bubble or tint, a grey avatar')
        assert.equal(await page.locator('.inbox__entry .message.message--first-of-day').count(), 1, 'one day, one day separator')
        await screenshot(page, `inbox-read-${width}-${colorScheme}`)
        if (colorScheme === 'dark') findings.push(...(await audit(page, `inbox on a ${width}, read entries`)))
        assert.deepEqual(kevin.problems, [])
        await kevin.context.close()
      }
    }
    assert.deepEqual(findings, [], describeFindings(findings))
    assert.deepEqual(david.problems, [])
  })
})
