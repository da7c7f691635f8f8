import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { test } from 'node:test'
import { chromiumAvailable, launchBrowser, openTab, signIn } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'
import { grayPng } from '../support/images.ts'
import { readZip } from '../support/zip.ts'

// David prepares the account's export from the account page, waits for it, downloads it, and
// opens a room's page from the unpacked zip with no server: it shows the room's messages and
// its picture, and asks nothing of the network.
test('an administrator prepares an export from the account page, downloads it, and its room page opens offline', { skip: !chromiumAvailable() && 'chromium is not installed', timeout: 180_000 }, async (t) => {
  const campfire = await startCampfire(t)
  const browser = await launchBrowser(t)
  const tab = await openTab(browser, campfire.baseUrl)
  const { page } = tab
  await signIn(tab, 'david@37signals.com')
  const hq = campfire.labels['rooms.hq']
  await page.goto(`/rooms/${hq}`)
  const posted = await page.evaluate(async ({ room, bytes }) => {
    const body = new FormData()
    body.append('message[attachment]', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'offline-cat.png')
    return (await fetch(`/rooms/${room}/messages`, { method: 'POST', body, headers: { accept: 'text/html' } })).status
  }, { room: hq, bytes: [...grayPng(40, 30)] })
  assert.ok(posted < 400, `the picture was posted (${posted})`)

  await page.goto('/account/edit')
  await page.getByRole('button', { name: 'Prepare an export' }).click()
  await page.waitForURL('**/account/export')
  const download = page.getByRole('link', { name: 'Download the export' })
  for (let tries = 0; !(await download.isVisible()) && tries < 60; tries++) {
    await page.waitForTimeout(500)
    await page.reload()
  }
  const [file] = await Promise.all([page.waitForEvent('download'), download.click()])
  assert.match(file.suggestedFilename(), /^campfire-account-export-\d{4}-\d\d-\d\d\.zip$/)
  const zip = await readZip(await file.path())

  const folder = mkdtempSync(join(tmpdir(), 'campfire-export-'))
  t.after(() => rmSync(folder, { recursive: true, force: true }))
  for (const [path, bytes] of zip) {
    mkdirSync(dirname(join(folder, path)), { recursive: true })
    writeFileSync(join(folder, path), bytes)
  }

  const offline = await browser.newContext({ offline: true })
  t.after(() => offline.close())
  const reader = await offline.newPage()
  const asked: string[] = []
  const problems: string[] = []
  reader.on('request', (request) => {
    if (!request.url().startsWith('file:')) asked.push(request.url())
  })
  reader.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text())
  })
  await reader.goto(pathToFileURL(join(folder, 'rooms', `${hq}.html`)).href)
  await reader.getByRole('heading', { name: 'HQ', level: 1 }).waitFor()
  assert.ok((await reader.locator('article').count()) > 1, 'the room’s messages are on the page')
  const picture = reader.getByRole('img', { name: 'offline-cat.png' })
  await picture.waitFor()
  const loaded = await picture.evaluate((element) => {
    const image = element as unknown as { complete: boolean; naturalWidth: number }
    return image.complete && image.naturalWidth
  })
  assert.equal(loaded, 40, 'the picture loads from the zip')
  assert.deepEqual(asked, [], 'the page asks nothing of the network')
  assert.deepEqual(problems, [])
  assert.deepEqual(tab.problems, [])
})
