import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import Database from 'better-sqlite3'
import sharp from 'sharp'
import type { Page } from 'playwright-core'
import { chromiumAvailable, launchBrowser, openTab, signIn, waitUntilLive, type Tab } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'

// Page-side code is a string: test files compile without the DOM library.
const computed = (page: Page, property: string) => page.evaluate(`getComputedStyle(document.body).getPropertyValue(${JSON.stringify(property)}).trim()`) as Promise<string>

// Waits until Turbo has finished the form submission or visit under way.
async function settled(page: Page): Promise<void> {
  await page.waitForFunction(`!document.querySelector('form[aria-busy="true"], html[aria-busy="true"], turbo-frame[aria-busy="true"]')`)
}

// Counts the page's WebSockets and resolves when the first one closes.
function sockets(tab: Tab): { opened: () => number; closed: Promise<void> } {
  let opened = 0
  let close!: () => void
  const closed = new Promise<void>((resolve) => (close = resolve))
  tab.page.on('websocket', (socket) => {
    opened++
    socket.on('close', () => close())
  })
  return { opened: () => opened, closed }
}

describe('the account page, in a real browser', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('an administrator renames the account with fill() and with the keyboard, and the name stays after a reload', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const admin = await openTab(browser, campfire.baseUrl)
    await signIn(admin, 'david@37signals.com')
    await admin.page.goto('/account/edit')
    const name = admin.page.locator('[name="account[name]"]')
    await name.fill('Browser Campfire')
    await admin.page.getByRole('button', { name: 'Save changes', exact: true }).click()
    await admin.page.getByRole('alert').filter({ hasText: '✓' }).waitFor()
    await settled(admin.page)
    await admin.page.reload()
    assert.equal(await name.inputValue(), 'Browser Campfire')

    await name.fill('')
    await name.pressSequentially('Typed Campfire')
    await Promise.all([admin.page.waitForResponse((response) => response.url().endsWith('/account/edit') && response.request().method() === 'GET'), name.press('Enter')])
    await settled(admin.page)
    await admin.page.reload()
    assert.equal(await name.inputValue(), 'Typed Campfire')
    assert.equal(await admin.page.title(), 'Account settings')
    assert.deepEqual(admin.problems, [])
  })

  test('custom CSS saved by an administrator applies on the next page and on the account page; Ctrl+Enter saves it too', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const admin = await openTab(browser, campfire.baseUrl)
    await signIn(admin, 'david@37signals.com')
    await admin.page.goto('/account/custom_styles/edit')
    await admin.page.locator('[name="account[custom_styles]"]').fill(':root { --campfire-test: 7px; } body { --browser-test: verified; }')
    await admin.page.locator('form:has(textarea[name="account[custom_styles]"]) button').click()
    await admin.page.waitForFunction(`getComputedStyle(document.body).getPropertyValue('--browser-test').trim() === 'verified'`)
    await admin.page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
    assert.equal(await computed(admin.page, '--campfire-test'), '7px')
    await admin.page.goto('/account/edit')
    assert.equal(await computed(admin.page, '--browser-test'), 'verified')

    await admin.page.goto('/account/custom_styles/edit')
    const styles = admin.page.locator('[name="account[custom_styles]"]')
    await styles.fill('')
    await styles.pressSequentially(':root { --campfire-test: 9px; }')
    await styles.press('Control+Enter')
    await admin.page.waitForFunction(`getComputedStyle(document.body).getPropertyValue('--campfire-test').trim() === '9px'`)

    const member = await openTab(browser, campfire.baseUrl)
    await signIn(member, 'kevin@37signals.com')
    assert.equal(await computed(member.page, '--campfire-test'), '9px', 'everyone gets them')
    assert.deepEqual([...admin.problems, ...member.problems], [])
  })

  test('an administrator makes someone an administrator with the crown, then removes a person whose room is open: their socket closes at once and their next page asks them to sign in', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const kevin = await openTab(browser, campfire.baseUrl)
    const kevinSockets = sockets(kevin)
    await signIn(kevin, 'kevin@37signals.com')
    await kevin.page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
    await waitUntilLive(kevin.page)

    const admin = await openTab(browser, campfire.baseUrl)
    await signIn(admin, 'david@37signals.com')
    await admin.page.goto('/account/edit')
    const jz = admin.page.locator('#account_users li', { hasText: 'Jason Zimdars' })
    assert.equal(await jz.getByRole('checkbox', { name: 'Role: Member' }).isChecked(), false)
    await jz.locator('label.account-person__role').click()
    await jz.getByRole('checkbox', { name: 'Role: Administrator' }).waitFor()
    assert.equal(await jz.getByRole('checkbox', { name: 'Role: Administrator' }).isChecked(), true, 'clicking the crown made JZ an administrator')
    await settled(admin.page)
    admin.page.once('dialog', (dialog) => void dialog.accept())
    await admin.page.getByRole('button', { name: 'Delete Kevin McConnell', exact: true }).click()
    // The answer redirects back to the account page: wait for the list without Kevin, not for
    // anything that was already on the page before the click.
    await admin.page.locator('#account_users li', { hasText: 'Kevin McConnell' }).first().waitFor({ state: 'detached' })
    await settled(admin.page)
    assert.equal(await admin.page.locator('#account_users').getByText('Kevin McConnell').count(), 0)
    assert.equal(await admin.page.locator('#account_users li.account-person', { hasText: 'Jason Zimdars' }).count(), 1)

    await Promise.race([kevinSockets.closed, new Promise((_, reject) => setTimeout(() => reject(new Error('the socket stayed open')), 5000))])
    const opened = kevinSockets.opened()
    await kevin.page.waitForTimeout(1500)
    assert.equal(kevinSockets.opened(), opened, 'the page does not reconnect')
    await kevin.page.getByRole('link', { name: 'Account Settings' }).click()
    await kevin.page.waitForURL(/\/session\/new$/)
    assert.deepEqual([...kevin.problems, ...admin.problems], [])
  })

  test('someone who joins through the account page’s invite link sees no administrator controls on their account page', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const admin = await openTab(browser, campfire.baseUrl)
    await signIn(admin, 'david@37signals.com')
    await admin.page.goto('/account/edit')
    assert.equal(await admin.page.getByRole('link', { name: 'Set up chat bots' }).count(), 1)
    const invite = await admin.page.locator('#invite_url').inputValue()
    assert.match(invite, new RegExp(`^${campfire.baseUrl}/join/`))

    const joined = await openTab(browser, campfire.baseUrl)
    await joined.page.goto(invite)
    await joined.page.locator('[name="user[name]"]').fill('Joined browser user')
    await joined.page.locator('[name="user[email_address]"]').fill('joined@example.test')
    await joined.page.locator('[name="user[password]"]').fill('joining test password')
    await Promise.all([joined.page.waitForURL(/\/rooms\/\d+$/), joined.page.locator('form:has(input[name="user[name]"]) button[type="submit"]').click()])
    await joined.page.locator('.messages').first().waitFor({ state: 'attached' })
    await settled(joined.page)
    await joined.page.goto('/account/edit')
    assert.equal(await joined.page.getByRole('link', { name: 'Set up chat bots' }).count(), 0)
    assert.equal(await joined.page.getByRole('link', { name: 'Custom styles' }).count(), 0)
    assert.equal(await joined.page.locator('[name="account[name]"]').count(), 0)
    assert.equal(await joined.page.getByRole('button', { name: /^Delete / }).count(), 0)
    await joined.page.locator('#account_users strong').getByText('Joined browser user', { exact: true }).waitFor()
    assert.deepEqual([...admin.problems, ...joined.problems], [])
  })

  test('a logo uploaded on the account page is the favicon and the nav’s logo, and deleting it brings back our icon', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const admin = await openTab(browser, campfire.baseUrl)
    await signIn(admin, 'david@37signals.com')
    await admin.page.goto('/account/edit')
    const icon = async () => (await admin.page.locator('link[rel="icon"]').getAttribute('href'))!
    const before = await icon()
    const png = await sharp({ create: { width: 600, height: 300, channels: 3, background: '#2a7' } }).png().toBuffer()
    await admin.page.locator('#account_logo').setInputFiles({ name: 'green.png', mimeType: 'image/png', buffer: png })
    await admin.page.getByRole('button', { name: 'Delete logo' }).waitFor()
    await settled(admin.page)
    assert.notEqual(await icon(), before, 'the favicon URL moved')
    assert.match(await icon(), /^\/account\/logo\?size=small&v=\d{20}$/)
    const size = await admin.page.evaluate(`(async () => { const image = new Image(); image.src = ${JSON.stringify(await icon())}; await image.decode(); return [image.naturalWidth, image.naturalHeight] })()`)
    assert.deepEqual(size, [192, 96])
    await admin.page.goto(`/rooms/${campfire.labels['rooms.watercooler']}`)
    await admin.page.locator('#nav .account-logo--nav img').waitFor()

    await admin.page.goto('/account/edit')
    await admin.page.getByRole('button', { name: 'Delete logo' }).click()
    await admin.page.getByRole('button', { name: 'Delete logo' }).waitFor({ state: 'detached' })
    await settled(admin.page)
    assert.deepEqual(await admin.page.evaluate(`(async () => { const image = new Image(); image.src = ${JSON.stringify(await icon())}; await image.decode(); return [image.naturalWidth, image.naturalHeight] })()`), [192, 192], 'our icon again')
    assert.deepEqual(admin.problems, [])
  })

  test('the people list loads its next page as it scrolls into view', async (t) => {
    const campfire = await startCampfire(t)
    let total = 0
    await campfire.restart(() => {
      const db = new Database(join(campfire.storage, 'db', 'production.sqlite3'))
      const insert = db.prepare("INSERT INTO users (name, email_address, role, status, created_at, updated_at) VALUES (?, ?, 0, 0, '2026-03-02 00:00:00', '2026-03-02 00:00:00')")
      db.transaction(() => {
        for (let i = 0; i < 520; i++) insert.run(`Zz Person ${String(i).padStart(3, '0')}`, `zz${i}@example.com`)
      })()
      total = db.prepare('SELECT count(*) FROM users WHERE role != 2 AND status = 0').pluck().get() as number
      db.close()
    })
    const browser = await launchBrowser(t)
    const member = await openTab(browser, campfire.baseUrl)
    await signIn(member, 'jz@37signals.com')
    await member.page.goto('/account/edit')
    const people = member.page.locator('#account_users li.account-person')
    assert.equal(await people.count(), 500)
    await member.page.locator('#next_page_container').scrollIntoViewIfNeeded()
    await member.page.waitForFunction(`document.querySelectorAll('#account_users li.account-person').length === ${total}`)
    assert.equal(await member.page.locator('#next_page_container').count(), 0)
    await people.last().locator('strong', { hasText: 'Zz Person 519' }).waitFor()
    assert.deepEqual(member.problems, [])
  })
})
