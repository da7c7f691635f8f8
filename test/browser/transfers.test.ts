import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { chromiumAvailable, launchBrowser, openTab, signIn } from './support/browser.ts'
import { PASSWORD, startCampfire } from './support/campfire.ts'

interface ImageReport { status: number; type: string; width: number; height: number; corner: number[]; finder: number[] }

// Loads an image the page links to as the browser would show it: its status, its exact type,
// its natural size, and whether its corner is white and the first finder pattern's centre black
// (drawn on a canvas, so a QR code that drew nothing or inverted would fail). Page-side code is
// a string: test files compile without the DOM library.
const LOAD_IMAGE = `async (href) => {
  const response = await fetch(href)
  const blob = await response.blob()
  const image = new Image()
  image.src = URL.createObjectURL(blob)
  await image.decode()
  const canvas = document.createElement('canvas')
  canvas.width = image.naturalWidth
  canvas.height = image.naturalHeight
  const context = canvas.getContext('2d')
  context.drawImage(image, 0, 0)
  const side = Number(/viewBox="0 0 (\\d+)/.exec(await blob.text())[1])
  const module = image.naturalWidth / side
  const at = (modules) => Array.from(context.getImageData(Math.floor(modules * module), Math.floor(modules * module), 1, 1).data.slice(0, 3))
  return { status: response.status, type: blob.type, width: image.naturalWidth, height: image.naturalHeight, corner: at(1), finder: at(7.5) }
}`

function loadImage(page: Page, href: string): Promise<ImageReport> {
  return page.evaluate(`(${LOAD_IMAGE})(${JSON.stringify(href)})`) as Promise<ImageReport>
}

function assertQrImage(image: ImageReport) {
  assert.equal(image.status, 200)
  assert.equal(image.type, 'image/svg+xml')
  assert.ok(image.width > 0 && image.height > 0, `natural size ${image.width}×${image.height}`)
  assert.equal(image.width, image.height)
  assert.deepEqual(image.corner, [255, 255, 255], 'a white quiet zone')
  assert.deepEqual(image.finder, [0, 0, 0], 'a black finder pattern')
}

async function currentUserName(page: Page): Promise<string | null> {
  return page.locator('meta[name="current-user-name"]').getAttribute('content')
}

describe('links to hand on, in a real browser', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('the auto-login link on the profile signs the same person in on another device, and its QR code is an image', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const laptop = await openTab(browser, campfire.baseUrl)
    await signIn(laptop, 'jz@37signals.com')
    await laptop.page.goto('/users/me/profile')
    const url = await laptop.page.locator('#session_transfer_url').inputValue()
    assert.ok(url.startsWith(`${campfire.baseUrl}/session/transfers/`), url)

    const qrLink = laptop.page.getByRole('link', { name: 'Show auto-login QR code' })
    assertQrImage(await loadImage(laptop.page, (await qrLink.getAttribute('href'))!))
    await qrLink.click()
    const lightbox = laptop.page.locator('dialog.lightbox[open] img.lightbox__image')
    await lightbox.waitFor()
    assert.ok(await laptop.page.evaluate("(async () => { const img = document.querySelector('dialog.lightbox[open] img'); await img.decode(); return img.naturalWidth > 0 && img.src.includes('/qr_code/') })()"), 'the QR code opens in the lightbox')
    await laptop.page.keyboard.press('Escape')

    await laptop.page.getByRole('button', { name: 'Copy auto-login link' }).click()
    assert.equal(await laptop.page.evaluate('navigator.clipboard.readText()'), url, 'the copy button copies the link')

    const phone = await openTab(browser, campfire.baseUrl)
    await phone.page.goto(url)
    await phone.page.waitForURL(/\/rooms\/\d+$/)
    await phone.page.locator('.messages').first().waitFor({ state: 'attached' })
    assert.equal(await currentUserName(phone.page), 'Jason Zimdars')
    await phone.page.goto('/users/me/profile')
    assert.equal(await phone.page.locator('[name="user[email_address]"]').inputValue(), 'jz@37signals.com')
    assert.deepEqual([...laptop.problems, ...phone.problems], [])
  })

  test('the join link in the first room’s welcome lets someone new join, and a new one replaces it', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const admin = await openTab(browser, campfire.baseUrl)
    await signIn(admin, 'david@37signals.com')
    await admin.page.goto(`/rooms/${campfire.labels['rooms.pets']}`)
    const url = await admin.page.locator('#system_welcome #invite_url').inputValue()
    assert.match(url, new RegExp(`^${campfire.baseUrl}/join/[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}$`))
    assertQrImage(await loadImage(admin.page, (await admin.page.getByRole('link', { name: 'Show join link QR code' }).getAttribute('href'))!))
    await admin.page.getByRole('button', { name: 'Copy join link' }).click()
    assert.equal(await admin.page.evaluate('navigator.clipboard.readText()'), url)

    const newcomer = await openTab(browser, campfire.baseUrl)
    await newcomer.page.goto(url)
    await newcomer.page.getByLabel('Your name').fill('Ada Lovelace')
    await newcomer.page.getByLabel('Email address').fill('ada@example.com')
    await newcomer.page.getByLabel('Password').fill(PASSWORD)
    await newcomer.page.getByRole('button', { name: 'Join' }).click()
    await newcomer.page.waitForURL(/\/rooms\/\d+$/)
    await newcomer.page.locator('.messages').first().waitFor({ state: 'attached' })
    assert.equal(await currentUserName(newcomer.page), 'Ada Lovelace')
    assert.equal(await newcomer.page.getByRole('button', { name: 'Regenerate join link' }).count(), 0, 'a member cannot replace the link')

    await admin.page.goto(`/rooms/${campfire.labels['rooms.pets']}`)
    await admin.page.getByRole('button', { name: 'Regenerate join link' }).click()
    await admin.page.waitForURL(/\/account\/edit$/)
    await admin.page.goto(`/rooms/${campfire.labels['rooms.pets']}`)
    const replaced = await admin.page.locator('#system_welcome #invite_url').inputValue()
    assert.notEqual(replaced, url)
    const late = await openTab(browser, campfire.baseUrl)
    assert.equal((await late.page.goto(url))?.status(), 404, 'the old link is gone')
    assert.equal((await late.page.goto(replaced))?.status(), 200)
    assert.deepEqual([...admin.problems, ...newcomer.problems], [])
  })
})
