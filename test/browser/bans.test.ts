import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { DESKTOP, PHONE, chromiumAvailable, launchBrowser, openTab, screenshot, sendMessage, signIn, waitUntilLive, type Tab } from './support/browser.ts'
import { PASSWORD, startCampfire, type Campfire } from './support/campfire.ts'

// David (an administrator) bans JZ from JZ's public profile while JZ has a room open and Kevin
// watches the same room; then he lifts the ban and JZ signs in again.
describe('banning someone in a real browser', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  let campfire: Campfire
  let browser: Browser
  let david: Tab
  let jz: Tab
  let kevin: Tab
  let roomPath: string
  let profilePath: string
  const cleanups: (() => Promise<void> | void)[] = []

  before(async () => {
    const t = { after: (fn: () => Promise<void> | void) => void cleanups.push(fn) }
    campfire = await startCampfire(t)
    browser = await launchBrowser(t)
    roomPath = `/rooms/${campfire.labels['rooms.watercooler']}`
    profilePath = `/users/${campfire.labels['users.jz']}`
    david = await openTab(browser, campfire.baseUrl)
    jz = await openTab(browser, campfire.baseUrl)
    kevin = await openTab(browser, campfire.baseUrl)
    await signIn(david, 'david@37signals.com')
    await signIn(jz, 'jz@37signals.com')
    await signIn(kevin, 'kevin@37signals.com')
    for (const tab of [jz, kevin]) {
      await tab.page.goto(roomPath)
      await waitUntilLive(tab.page)
    }
  })

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  const messageIn = (tab: Tab, text: string) => tab.page.locator('#message-area .message[data-message-id]', { hasText: text })
  const banButton = (page: Page) => page.getByRole('button', { name: 'Ban Jason Zimdars' })
  const liftButton = (page: Page) => page.getByRole('button', { name: 'Remove ban' })

  // Confirms the next data-turbo-confirm dialog, checking what it asks.
  function confirmNext(page: Page, question: RegExp): Promise<void> {
    return new Promise((resolve, reject) => {
      page.once('dialog', (dialog) => {
        if (!question.test(dialog.message())) reject(new Error(`unexpected dialog: ${dialog.message()}`))
        dialog.accept().then(resolve, reject)
      })
    })
  }

  test('the ban closes the person’s page, removes their messages live for everyone, and the ban can be lifted', async () => {
    await sendMessage(jz.page, 'Buy cheap watches here')
    await messageIn(kevin, 'Buy cheap watches here').waitFor()

    await david.page.goto(profilePath)
    await banButton(david.page).waitFor()
    const confirmed = confirmNext(david.page, /Are you sure you want to ban this user\? This will log them out, delete their messages, and block their IP addresses\./)
    await banButton(david.page).click()
    await confirmed
    await liftButton(david.page).waitFor()
    assert.equal(new URL(david.page.url()).pathname, profilePath)

    // JZ's page loses its live connection (told not to come back), and Kevin sees the spam go.
    await jz.page.waitForFunction("document.querySelectorAll('turbo-cable-stream-source[connected]').length === 0", null, { timeout: 10_000 })
    await messageIn(kevin, 'Buy cheap watches here').waitFor({ state: 'detached', timeout: 15_000 })
    await jz.page.reload()
    assert.equal(new URL(jz.page.url()).pathname, '/session/new', 'a reload asks the banned person to sign in')

    await screenshots(david.page, 'banned')

    const lifted = confirmNext(david.page, /Are you sure you want to remove the ban on this user\?/)
    await liftButton(david.page).click()
    await lifted
    await banButton(david.page).waitFor()
    await screenshots(david.page, 'active')

    // JZ signs in again, typing this time.
    await jz.page.goto('/session/new')
    await jz.page.getByLabel('Email address').pressSequentially('jz@37signals.com')
    await jz.page.getByLabel('Password').pressSequentially(PASSWORD)
    await Promise.all([jz.page.waitForURL((url) => !url.pathname.startsWith('/session')), jz.page.keyboard.press('Enter')])
    await jz.page.goto(roomPath)
    await waitUntilLive(jz.page)

    assert.deepEqual([...david.problems, ...kevin.problems], [])
    assert.deepEqual(jz.problems, [], 'the banned page logs no error')
  })

  // The profile with its ban button (and banned, greyed), desktop and phone, light and dark.
  async function screenshots(page: Page, state: string): Promise<void> {
    for (const [device, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme: scheme })
        await tab.context.addCookies(await page.context().cookies())
        await tab.page.goto(profilePath)
        await tab.page.waitForLoadState('networkidle')
        await screenshot(tab.page, `ban-${state}-${device}-${scheme}`)
        assert.deepEqual(tab.problems, [])
        await tab.context.close()
      }
    }
  }
})
