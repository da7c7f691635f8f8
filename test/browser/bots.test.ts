import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { chromiumAvailable, DESKTOP, launchBrowser, openTab, PHONE, screenshot, signIn, waitUntilLive } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'

async function settle(page: Page): Promise<void> {
  await page.waitForFunction("!document.getAnimations().some((animation) => String(animation.effect?.pseudoElement).startsWith('::view-transition'))")
  await page.waitForFunction('[...document.images].every((image) => image.complete)')
}

// The bot's card in the list, and its curl box for one room.
const card = (page: Page, name: string) => page.locator('.bot-card').filter({ has: page.getByRole('link', { name: `Edit ${name}`, exact: true }) })
const curlBox = (page: Page, name: string, room: string) =>
  card(page, name).getByRole('group', { name: room, exact: true }).getByRole('textbox', { name: 'curl command for posting messages' })

describe('chat bots, in a real browser', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('an administrator adds a bot, its curl URL posts live into an open room, and renaming it shows in the list', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const admin = await openTab(browser, campfire.baseUrl)
    await signIn(admin, 'david@37signals.com')
    await admin.page.goto('/account/edit')
    await admin.page.getByRole('link', { name: 'Set up chat bots' }).click()
    await admin.page.waitForURL('**/account/bots')
    await admin.page.getByRole('link', { name: 'Add a chat bot' }).click()
    await admin.page.waitForURL('**/account/bots/new')
    await admin.page.getByPlaceholder('Name the bot').fill('Deploy Bot')
    await admin.page.getByRole('button', { name: 'Save changes' }).click()
    await admin.page.waitForURL((url) => url.pathname === '/account/bots')

    const line = await curlBox(admin.page, 'Deploy Bot', 'HQ').inputValue()
    const match = /^curl -d 'Hello!' (http:\/\/\S+\/rooms\/(\d+)\/\d+-[A-Za-z0-9]{12}\/messages)$/.exec(line)
    assert.ok(match, line)
    const [, url, roomId] = match
    assert.equal(Number(roomId), Number(campfire.labels['rooms.hq']))

    const member = await openTab(browser, campfire.baseUrl)
    await signIn(member, 'kevin@37signals.com')
    await member.page.goto(`/rooms/${roomId}`)
    await waitUntilLive(member.page)
    const posted = await fetch(url!, { method: 'POST', body: 'Hello from the bot', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    assert.equal(posted.status, 201)
    const message = member.page.locator('.message').filter({ hasText: 'Hello from the bot' })
    await message.waitFor()
    assert.match(await message.innerText(), /Deploy Bot/)

    await admin.page.getByRole('link', { name: 'Edit Deploy Bot', exact: true }).click()
    await admin.page.waitForURL(/\/account\/bots\/\d+\/edit$/)
    await admin.page.getByPlaceholder('Name the bot').fill('Release Bot')
    await admin.page.getByRole('button', { name: 'Save changes' }).click()
    await admin.page.getByRole('link', { name: 'Edit Release Bot', exact: true }).waitFor()
    assert.equal(await admin.page.getByRole('link', { name: 'Edit Deploy Bot', exact: true }).count(), 0)
    assert.equal(await curlBox(admin.page, 'Release Bot', 'HQ').inputValue(), line, 'renaming keeps the key')
    assert.deepEqual([...admin.problems, ...member.problems], [])
  })

  test('a refused form stays on the page with what was typed, and the key is reset after a confirmation', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const admin = await openTab(browser, campfire.baseUrl)
    await signIn(admin, 'david@37signals.com')
    await admin.page.goto('/account/bots/new')
    await admin.page.getByPlaceholder('Name the bot').fill('Hook Bot')
    await admin.page.getByRole('textbox', { name: 'Webhook URL' }).fill('https://user:secret@hooks.example.com/campfire')
    const [refused] = await Promise.all([admin.page.waitForResponse((response) => response.url().endsWith('/account/bots') && response.request().method() === 'POST'), admin.page.getByRole('button', { name: 'Save changes' }).click()])
    assert.equal(refused.status(), 422)
    await admin.page.getByRole('alert').filter({ hasText: 'user name or password' }).waitFor()
    assert.equal(await admin.page.getByPlaceholder('Name the bot').inputValue(), 'Hook Bot')
    admin.problems.splice(0)

    await admin.page.goto('/account/bots')
    const before = await curlBox(admin.page, 'Bender Bot', 'HQ').inputValue()
    await admin.page.getByRole('link', { name: 'Edit Bender Bot', exact: true }).click()
    const dialogs: string[] = []
    admin.page.once('dialog', (dialog) => {
      dialogs.push(dialog.message())
      void dialog.accept()
    })
    await admin.page.getByRole('button', { name: 'Reset key' }).click()
    await admin.page.waitForURL((url) => url.pathname === '/account/bots')
    assert.equal(dialogs.length, 1)
    const after = await curlBox(admin.page, 'Bender Bot', 'HQ').inputValue()
    assert.notEqual(after, before)
    const old = await fetch(/(http\S+)$/.exec(before)![1]!, { method: 'POST', body: 'old key', redirect: 'manual' })
    assert.equal(old.status, 302)
    assert.deepEqual(admin.problems, [])
  })

  test('the list and the form are drawn at desktop and phone widths in light and dark, for review', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const admin = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        await signIn(admin, 'david@37signals.com')
        await admin.page.goto('/account/bots')
        await card(admin.page, 'Bender Bot').waitFor()
        await settle(admin.page)
        await screenshot(admin.page, `bots-list-${width}-${colorScheme}`)
        await admin.page.goto('/account/bots/new')
        await admin.page.getByPlaceholder('Name the bot').blur()
        await settle(admin.page)
        await screenshot(admin.page, `bots-new-${width}-${colorScheme}`)
        await admin.page.goto(`/account/bots/${campfire.labels['users.bender']}/edit`)
        await admin.page.getByPlaceholder('Name the bot').blur()
        await settle(admin.page)
        await screenshot(admin.page, `bots-edit-${width}-${colorScheme}`)
        assert.deepEqual(admin.problems, [])
        await admin.context.close()
      }
    }
  })
})
