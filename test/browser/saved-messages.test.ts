import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { after, before, describe, test } from 'node:test'
import type { Browser, Locator, Page } from 'playwright-core'
import { chromiumAvailable, DESKTOP, launchBrowser, openTab, PHONE, signIn, waitUntilLive, type Tab } from './support/browser.ts'
import { startCampfire, type Campfire } from './support/campfire.ts'
import { audit, describeFindings } from './support/axe.ts'

// Saving and unsaving from a message's menu, the Saved page, and marking a message unread with a
// second device watching its sidebar: desktop and phone, light and dark. Screenshots go to
// $TMPDIR/campfire-saved-messages/ to be looked at.
const SHOTS = join(tmpdir(), 'campfire-saved-messages')
const SIZES = [['desktop', DESKTOP], ['phone', PHONE]] as const
const SCHEMES = ['light', 'dark'] as const

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true })
  await page.locator('.turbo-progress-bar').waitFor({ state: 'detached' })
  await page.waitForTimeout(400)
  await page.screenshot({ path: join(SHOTS, `${name}.png`) })
}

describe('saved messages and mark as unread in Chromium', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  const cleanups: (() => Promise<void> | void)[] = []
  const t = { after: (fn: () => Promise<void> | void) => void cleanups.push(fn) }
  let campfire: Campfire
  let browser: Browser
  const room = (label: string) => Number(campfire.labels[`rooms.${label}`])

  before(async () => {
    campfire = await startCampfire(t)
    browser = await launchBrowser(t)
  })

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  async function openMenu(message: Locator): Promise<Locator> {
    await message.hover()
    await message.locator('.message__options-btn').click()
    const menu = message.locator('.message__actions-menu')
    await menu.waitFor()
    return menu
  }

  // Sign-ins are rate limited: each person signs in once, and every later tab (another
  // device) starts with their cookies.
  const cookies = new Map<string, Awaited<ReturnType<Tab['context']['cookies']>>>()
  async function signedIn(email: string, viewport: { width: number; height: number }, colorScheme: 'light' | 'dark'): Promise<Tab> {
    const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
    const known = cookies.get(email)
    if (known) await tab.context.addCookies(known)
    else {
      await signIn(tab, email)
      cookies.set(email, await tab.context.cookies())
    }
    return tab
  }

  const lastMessage = (page: Page) => page.locator('#message-area .messages > .message[data-message-id]').last()

  test('a message is saved from its menu, listed on the Saved page, and unsaved again', async () => {
    for (const [size, viewport] of SIZES) {
      for (const colorScheme of SCHEMES) {
        const tab = await signedIn('jz@37signals.com', viewport, colorScheme)
        const { page } = tab
        await page.goto(`/rooms/${room('hq')}`)
        await waitUntilLive(page)
        const message = lastMessage(page)
        const id = await message.getAttribute('data-message-id')
        const text = (await message.locator('[data-reply-target="body"]').innerText()).trim().slice(0, 30)
        let menu = await openMenu(message)
        await menu.getByRole('button', { name: 'Save', exact: true }).click()
        await menu.getByRole('button', { name: 'Unsave', exact: true }).waitFor()
        assert.equal(await menu.getByRole('button', { name: 'Unsave', exact: true }).getAttribute('aria-pressed'), 'true')
        await shot(page, `menu-saved-${size}-${colorScheme}`)
        await page.keyboard.press('Escape')

        if (size === 'phone') await page.getByRole('button', { name: 'Open menu' }).click()
        await Promise.all([page.waitForURL(/\/users\/me\/saves$/), page.locator('#user_sidebar').getByRole('link', { name: 'Saved' }).click()])
        const saved = page.locator(`#saved-messages > .message[data-message-id="${id}"]`)
        await saved.waitFor()
        assert.ok((await saved.innerText()).includes(text), 'the saved message as the room shows it')
        assert.equal(await page.locator('#saved-messages > .message').count(), 1)
        assert.ok(await saved.locator('.message__room a').isVisible(), 'the entry names its room')
        assert.match(await saved.locator('.message__room a').innerText(), /HQ/)
        await shot(page, `saved-page-${size}-${colorScheme}`)

        menu = await openMenu(saved)
        await menu.getByRole('button', { name: 'Unsave', exact: true }).click()
        await menu.getByRole('button', { name: 'Save', exact: true }).waitFor()
        await page.reload()
        await page.getByText('No saved messages yet').waitFor()
        assert.equal(await page.locator('#saved-messages > .message').count(), 0)
        await shot(page, `saved-page-empty-${size}-${colorScheme}`)

        // In place: the permalink from the Saved page opens the message in its room.
        await page.goto(`/rooms/${room('hq')}`)
        await waitUntilLive(page)
        menu = await openMenu(lastMessage(page))
        await menu.getByRole('button', { name: 'Save', exact: true }).click()
        await menu.getByRole('button', { name: 'Unsave', exact: true }).waitFor()
        await page.goto('/users/me/saves')
        await Promise.all([page.waitForURL(new RegExp(`/rooms/${room('hq')}/@${id}$`)), page.locator(`#saved-messages .message[data-message-id="${id}"] .message__permalink`).click()])
        await page.locator(`#message-area .message.search-highlight[data-message-id="${id}"]`).waitFor()
        menu = await openMenu(page.locator(`#message-area .message[data-message-id="${id}"]`))
        await menu.getByRole('button', { name: 'Unsave', exact: true }).click()
        await menu.getByRole('button', { name: 'Save', exact: true }).waitFor()
        assert.deepEqual(tab.problems, [])
        await tab.context.close()
      }
    }
  })

  test('marking a message unread turns the room bold on this device and another, which then opens it at that message', async () => {
    for (const colorScheme of SCHEMES) {
      for (const [actorSize, watcherSize] of [['desktop', 'phone'], ['phone', 'desktop']] as const) {
        const actor = await signedIn('kevin@37signals.com', actorSize === 'phone' ? PHONE : DESKTOP, colorScheme)
        const watcher = await signedIn('kevin@37signals.com', watcherSize === 'phone' ? PHONE : DESKTOP, colorScheme)
        // All Talk is the busy room: the mark is well before its newest message.
        const talk = room('watercooler')
        await watcher.page.goto(`/rooms/${room('pets')}`)
        await waitUntilLive(watcher.page)
        await actor.page.goto(`/rooms/${talk}`)
        await waitUntilLive(actor.page)
        const tileOf = (page: Page) => page.locator(`#shared_rooms a.room[data-room-id="${talk}"]`)
        await watcher.page.waitForFunction(`document.querySelector('#shared_rooms .room[data-room-id="${talk}"]')?.classList.contains('unread') === false`)

        const messages = actor.page.locator('#message-area .messages > .message[data-message-id]')
        const marked = messages.nth((await messages.count()) - 12)
        const markedId = await marked.getAttribute('data-message-id')
        const menu = await openMenu(marked)
        await menu.getByRole('button', { name: 'Mark as unread' }).click()
        for (const tab of [actor, watcher]) {
          await tab.page.waitForFunction(`document.querySelector('#shared_rooms .room[data-room-id="${talk}"]')?.classList.contains('unread') === true`)
        }
        assert.equal(await actor.page.evaluate("document.body.classList.contains('has-unread')"), true, 'the menu button’s dot')
        for (const [tab, role, size] of [[actor, 'actor', actorSize], [watcher, 'watcher', watcherSize]] as const) {
          if (size === 'phone') await tab.page.getByRole('button', { name: 'Open menu' }).click()
          const weight = Number(await tab.page.evaluate(`getComputedStyle(document.querySelector('#shared_rooms .room[data-room-id="${talk}"]')).fontWeight`))
          assert.ok(weight >= 600, `the room shows bold to the ${role} (${weight})`)
          await shot(tab.page, `marked-unread-${role}-${size}-${colorScheme}`)
        }

        // The other device opens the room: at the marked message, and both devices show it read.
        await Promise.all([watcher.page.waitForURL(new RegExp(`/rooms/${talk}$`)), tileOf(watcher.page).click()])
        const highlighted = watcher.page.locator(`#message-area .message.search-highlight[data-message-id="${markedId}"]`)
        await highlighted.waitFor()
        await watcher.page.waitForTimeout(500)
        const box = (await highlighted.boundingBox())!
        const viewport = watcher.page.viewportSize()!
        assert.ok(box.y >= 0 && box.y + Math.min(box.height, 40) <= viewport.height, `the marked message is in view (${JSON.stringify(box)})`)
        await watcher.page.waitForFunction(`document.querySelector('#shared_rooms .room[data-room-id="${talk}"]')?.classList.contains('unread') === false`)
        await actor.page.waitForFunction(`document.querySelector('#shared_rooms .room[data-room-id="${talk}"]')?.classList.contains('unread') === false`)
        await shot(watcher.page, `opened-at-mark-${watcherSize}-${colorScheme}`)
        assert.deepEqual([...actor.problems, ...watcher.problems], [])
        await actor.context.close()
        await watcher.context.close()
      }
    }
  })

  test('axe finds nothing on the message menu with its Save and Mark as unread, or on the Saved page, full or empty', async () => {
    const tab = await signedIn('jz@37signals.com', DESKTOP, 'light')
    const { page } = tab
    await page.goto(`/rooms/${room('designers')}`)
    await waitUntilLive(page)
    const message = lastMessage(page)
    const menu = await openMenu(message)
    await menu.getByRole('button', { name: 'Save', exact: true }).waitFor()
    const findings = await audit(page, 'message menu, Save offered')
    await menu.getByRole('button', { name: 'Save', exact: true }).click()
    await menu.getByRole('button', { name: 'Unsave', exact: true }).waitFor()
    findings.push(...(await audit(page, 'message menu, saved')))
    await page.goto('/users/me/saves')
    await page.locator('#saved-messages > .message').first().waitFor()
    findings.push(...(await audit(page, 'Saved page')))
    await page.goto(`/users/me/saves?before=1`)
    await page.getByText('No older saved messages').waitFor()
    findings.push(...(await audit(page, 'Saved page, nothing older')))
    assert.equal(findings.length, 0, `\n${describeFindings(findings)}`)
    assert.deepEqual(tab.problems, [])
    await tab.context.close()
  })

  test('a Ping marked unread turns unread on the other device', async () => {
    const actor = await signedIn('david@37signals.com', DESKTOP, 'light')
    const watcher = await signedIn('david@37signals.com', PHONE, 'dark')
    const ping = room('david_and_jason')
    await watcher.page.goto(`/rooms/${room('hq')}`)
    await waitUntilLive(watcher.page)
    await actor.page.goto(`/rooms/${ping}`)
    await waitUntilLive(actor.page)
    const order = (page: Page) => page.locator('#direct_rooms > [data-room-id]').evaluateAll((tiles) => tiles.map((tile) => tile.getAttribute('data-room-id')))
    const before = await order(watcher.page)
    const menu = await openMenu(actor.page.locator('#message-area .messages > .message[data-message-id]').first())
    await menu.getByRole('button', { name: 'Mark as unread' }).click()
    for (const tab of [actor, watcher]) {
      await tab.page.waitForFunction(`document.querySelector('#direct_rooms .direct[data-room-id="${ping}"]')?.classList.contains('unread') === true`)
    }
    assert.deepEqual(await order(watcher.page), before, 'no new message: the Pings keep their order')
    await watcher.page.getByRole('button', { name: 'Open menu' }).click()
    await shot(watcher.page, 'ping-marked-unread-phone-dark')
    assert.deepEqual([...actor.problems, ...watcher.problems], [])
    await actor.context.close()
    await watcher.context.close()
  })
})
