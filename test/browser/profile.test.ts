import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import sharp from 'sharp'
import { chromiumAvailable, launchBrowser, openTab, signIn, waitUntilLive } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'

// Your own profile in a real browser: the bio and name saved and kept across a reload, and a
// new avatar picked through the file input showing in the sidebar. No page may log an error.
describe('the profile in a real browser', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('saves the bio and the name, and a new avatar shows in the sidebar', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const tab = await openTab(browser, campfire.baseUrl)
    const { page } = tab
    await signIn(tab, 'david@37signals.com')

    await page.goto('/users/me/profile')
    const bio = page.locator('[name="user[bio]"]')
    await bio.fill('Creator of Ruby on Rails. Races cars.')
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/users/me/profile') && r.request().method() === 'GET'), page.getByRole('button', { name: 'Save changes', exact: true }).click()])
    await page.locator('.flash', { hasText: '✓' }).waitFor()
    await page.reload()
    assert.equal(await page.locator('[name="user[bio]"]').inputValue(), 'Creator of Ruby on Rails. Races cars.')

    const name = page.getByLabel('Name', { exact: true })
    await name.click()
    await page.keyboard.press('ControlOrMeta+a')
    await name.pressSequentially('David H. Hansson')
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/users/me/profile') && r.request().method() === 'GET'), page.keyboard.press('Enter')])
    await page.reload()
    assert.equal(await page.locator('[name="user[name]"]').inputValue(), 'David H. Hansson')
    assert.equal(await page.title(), 'David H. Hansson')

    const room = campfire.labels['rooms.watercooler']
    await page.goto(`/rooms/${room}`)
    await waitUntilLive(page)
    const own = page.locator('#user_sidebar a[href="/users/me/profile"] img')
    await own.waitFor()
    const before = await own.getAttribute('src')

    await page.goto('/users/me/profile')
    const picture = await sharp({ create: { width: 800, height: 600, channels: 3, background: { r: 30, g: 120, b: 220 } } }).jpeg().toBuffer()
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/users/me/profile') && r.request().method() === 'GET'),
      page.locator('#user_avatar').setInputFiles({ name: 'lake.jpg', mimeType: 'image/jpeg', buffer: picture }),
    ])
    await page.locator('.flash', { hasText: 'It may take up to 30 minutes to change everywhere.' }).waitFor()
    await page.getByRole('button', { name: 'Delete avatar' }).waitFor()

    await page.goto(`/rooms/${room}`)
    await waitUntilLive(page)
    await own.waitFor()
    const after = await own.getAttribute('src')
    assert.notEqual(after, before, 'the sidebar asks for the new avatar')
    const loaded = await own.evaluate(async (img: { complete: boolean; naturalWidth: number; decode(): Promise<void> }) => {
      if (!img.complete) await img.decode()
      return img.naturalWidth
    })
    assert.equal(loaded, 512)
    const served = await page.request.get(after!)
    assert.equal(served.headers()['content-type'], 'image/webp')
    assert.deepEqual(tab.problems, [])
  })
})
