import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Locator, Page, Request } from 'playwright-core'
import { chromiumAvailable, launchBrowser, openTab, screenshot, sendMessage, signIn, waitUntilLive, type Tab } from './support/browser.ts'
import { startCampfire, type Campfire } from './support/campfire.ts'
import { dropFiles, pasteFiles, photo, picture, textFile, throttleUploads, videoClip } from './support/files.ts'

const REPRESENTATION = '/rails/active_storage/representations/redirect/'
const BLOB = '/rails/active_storage/blobs/redirect/'
const NOTES = 'Minutes of the meeting.\n'.repeat(4000)

// David sends files to HQ the ways people do: several dropped on the room at once, picked in
// the file dialog, pasted, dropped on the composer. Each file becomes its own message with its
// own pending copy and progress bar, and then the server's copy: a thumbnail for a photo, a
// poster for a video, a download link for anything else.
describe('sending files in a real browser', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  const cleanups: (() => Promise<void> | void)[] = []
  const t = { after: (fn: () => Promise<void> | void) => void cleanups.push(fn) }
  let campfire: Campfire
  let browser: Browser
  let tab: Tab
  let uploads: Request[]
  const clip = videoClip()
  const sent: Record<string, string> = {}

  before(async () => {
    campfire = await startCampfire(t)
    browser = await launchBrowser(t)
    tab = await openTab(browser, campfire.baseUrl)
    await recordStreamsAndShares(tab.page)
    uploads = []
    tab.page.on('request', (request) => {
      if (request.method() === 'POST' && /multipart\/form-data/.test(request.headers()['content-type'] ?? '')) uploads.push(request)
    })
    await signIn(tab, 'david@37signals.com')
    await tab.page.goto(`/rooms/${campfire.labels['rooms.hq']}`)
    await waitUntilLive(tab.page)
  })

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  test('three files dropped on the room show three pending messages with progress, then a thumbnail, a poster and a file link', async (context) => {
    const { page } = tab
    const files = [await photo('beach.jpg'), textFile('notes.txt', NOTES), ...(clip ? [clip] : [])]
    const names = files.map((file) => file.name).sort()
    const throttle = await throttleUploads(page, 384 * 1024)

    await dropFiles(page, '#message-area .messages', files)
    assert.deepEqual(await composerFileNames(page), names)
    await page.getByRole('button', { name: 'Send Message' }).click()

    const pending = page.locator('.message--pending')
    await pending.nth(names.length - 1).waitFor()
    assert.deepEqual(await pending.locator('.message__pending-upload-name').allTextContents(), names)
    assert.equal(await pending.locator('[role="progressbar"]').count(), names.length)
    const ids = await pending.evaluateAll((messages) => messages.map((message) => message.id))
    names.forEach((name, index) => (sent[name] = ids[index]!))
    assert.deepEqual(await composerFileNames(page), [], 'the list is emptied on send')

    // The first upload (the photo, first by name) moves its bar while the others wait at 0%:
    // one upload at a time, in the order listed.
    const progress = await page.waitForFunction(`(() => {
      const bar = document.querySelector('#${ids[0]} [role="progressbar"]')
      const value = Number(bar?.getAttribute('aria-valuenow'))
      return value > 0 && value < 100 ? { value, style: bar.style.getPropertyValue('--upload-progress') } : null
    })()`, undefined, { polling: 'raf' })
    const { value, style } = (await progress.jsonValue()) as { value: number; style: string }
    assert.equal(style, `${value}%`)
    for (const id of ids.slice(1)) assert.equal(await page.locator(`#${id}.message--pending [role="progressbar"]`).getAttribute('aria-valuenow'), '0')

    await throttle.lift()
    await page.waitForFunction(`${JSON.stringify(ids)}.every((id) => document.getElementById(id)?.dataset.messageId)`, undefined, { timeout: 60_000 })
    // Each arrives twice, as the post's answer and on the room's stream; it is shown once, in order.
    await settled(page, ids)
    for (const id of ids) assert.equal(await page.locator(`[id="${id}"]`).count(), 1)
    assert.deepEqual(await page.locator('#message-area .messages > .message').evaluateAll((messages) => messages.slice(-3).map((m) => m.id)), ids.slice(-3))
    assert.equal(await page.locator('.message--failed').count(), 0)

    // A photo is shown by its thumbnail, which fits 1200×800.
    const image = page.locator(`#${sent['beach.jpg']} a[data-lightbox] img`)
    await image.scrollIntoViewIfNeeded()
    assert.ok((await image.getAttribute('src'))?.startsWith(REPRESENTATION), `thumbnail src: ${await image.getAttribute('src')}`)
    const size = await naturalSize(image)
    assert.ok(size.width <= 1200 && size.height <= 800 && size.width > 0, `thumbnail is ${size.width}×${size.height}`)

    // Anything else: its name and a download link.
    const link = page.locator(`#${sent['notes.txt']} .message__attachment-link`)
    assert.match(await link.innerText(), /notes\.txt/)
    const download = link.locator(`a[href*="${BLOB}"][href*="disposition=attachment"]`)
    assert.equal(await download.count(), 1)
    assert.equal(await fetchText(page, (await download.getAttribute('href'))!), NOTES)

    // A video plays inline, with a poster made from its first frame.
    if (clip) {
      const video = page.locator(`#${sent['clip.mp4']} video`)
      const poster = await video.getAttribute('poster')
      assert.ok(poster, 'the video has a poster')
      assert.equal(await contentTypeOf(page, poster), 'image/webp')
    } else {
      context.diagnostic('ffmpeg is missing: no video was sent, so the poster is not checked')
    }

    // The uploads met the same forgery rules as the text post: same-origin Fetch Metadata.
    assert.equal(uploads.length, names.length)
    for (const upload of uploads) {
      const headers = await upload.allHeaders()
      assert.equal(headers['sec-fetch-site'], 'same-origin')
      assert.equal(headers.origin, campfire.baseUrl)
      assert.equal((await upload.response())?.status(), 200)
    }
    assert.deepEqual(tab.problems, [])
  })

  test('the lightbox opens the original photo, not its thumbnail, and shares the original', async () => {
    const { page } = tab
    await page.locator(`#${sent['beach.jpg']} a[data-lightbox]`).click()
    const image = page.locator('dialog.lightbox[open] .lightbox__image')
    await image.waitFor()
    assert.ok((await image.getAttribute('src'))?.includes(BLOB), `lightbox src: ${await image.getAttribute('src')}`)
    assert.deepEqual(await naturalSize(image), { width: 3000, height: 2000 })
    const share = page.locator('dialog.lightbox[open]').getByRole('button', { name: 'Share' })
    await share.hover()
    for (let click = 0; click < 3 && (await sharedCount(page)) === 0; click++) {
      await share.click()
      await page.waitForFunction((button) => !button.hasAttribute('aria-busy'), await share.elementHandle())
    }
    const shared = (await page.evaluate('window.shared.splice(0)')) as Shared[]
    assert.equal(shared.length, 1, 'shared once')
    assert.equal(shared[0]!.title, 'beach.jpg')
    assert.deepEqual(shared[0]!.files.map((f) => [f.name, f.type]), [['beach.jpg', 'image/jpeg']])
    assert.ok(shared[0]!.files[0]!.size > 100_000, `the original is shared, not the thumbnail (${shared[0]!.files[0]!.size} bytes)`)
    await page.getByRole('button', { name: 'Close' }).click()
    await page.locator('dialog.lightbox[open]').waitFor({ state: 'detached' })
  })

  test('a file message’s menu offers Download and Share instead of Reply, and Share hands over the file', async () => {
    const { page } = tab
    const menu = await openMenu(page, `#${sent['notes.txt']}`)
    assert.equal(await menu.getByRole('button', { name: 'Reply' }).count(), 0)
    const download = menu.getByRole('link', { name: 'Download' })
    assert.match((await download.getAttribute('href'))!, /notes\.txt\?disposition=attachment$/)
    const share = menu.getByRole('button', { name: 'Share' })
    await share.hover()
    for (let click = 0; click < 3 && (await sharedCount(page)) === 0; click++) {
      await share.click()
      await page.waitForFunction((button) => !button.hasAttribute('aria-busy'), await share.elementHandle())
    }
    const [shared] = (await page.evaluate('window.shared')) as Shared[]
    assert.deepEqual(shared, { title: 'notes.txt', files: [{ name: 'notes.txt', type: 'text/plain', size: NOTES.length }] })
    await page.keyboard.press('Escape')

    // A text message keeps Reply, and has no Share.
    await sendMessage(page, 'Just words')
    const words = page.locator('.message[data-message-id]', { hasText: 'Just words' })
    await words.waitFor()
    const wordsId = (await words.getAttribute('id'))!
    await settled(page, [wordsId])
    const textMenu = await openMenu(page, `#${wordsId}`)
    assert.equal(await textMenu.getByRole('button', { name: 'Reply' }).count(), 1)
    assert.equal(await textMenu.getByRole('button', { name: 'Share' }).count(), 0)
    await page.keyboard.press('Escape')
    assert.deepEqual(tab.problems, [])
  })

  test('files picked in the dialog are listed with thumbnails, can be taken off, and a caption goes as its own message', async () => {
    const { page } = tab
    const picked = [textFile('c-spare.txt', 'not this one'), await photo('b-small.jpg', 640, 480), textFile('a-agenda.txt', 'Agenda\n')]
    await page.locator('#composer input[type="file"]').setInputFiles(picked)
    assert.deepEqual(await composerFileNames(page), ['a-agenda.txt', 'b-small.jpg', 'c-spare.txt'])
    const thumbnail = page.locator('#composer .composer__file', { hasText: 'b-small' }).locator('img')
    assert.match((await thumbnail.getAttribute('src'))!, /^blob:/)
    assert.deepEqual(await naturalSize(thumbnail), { width: 640, height: 480 })

    await page.getByRole('button', { name: 'Remove c-spare.txt' }).click()
    assert.deepEqual(await composerFileNames(page), ['a-agenda.txt', 'b-small.jpg'])

    const editor = page.getByRole('textbox', { name: 'Write a message' })
    await editor.click()
    await editor.pressSequentially('Two files for the meeting')
    const before = await messageCount(page)
    await page.getByRole('button', { name: 'Send Message' }).click()
    await page.waitForFunction(`document.querySelectorAll('#message-area .messages > .message[data-message-id]').length === ${before + 3}`)
    await page.locator('.message--pending').first().waitFor({ state: 'detached' })

    const last = page.locator('#message-area .messages > .message').nth(-3)
    assert.match(await last.innerText(), /Two files for the meeting/)
    assert.equal(await last.locator('.message__attachment-link, img.message__attachment').count(), 0, 'the caption is a text message of its own')
    assert.match(await page.locator('#message-area .messages > .message').nth(-2).innerText(), /a-agenda\.txt/)
    assert.equal(await page.locator('#message-area .messages > .message').nth(-1).locator(`img[src^="${REPRESENTATION}"]`).count(), 1)
    assert.equal(await page.getByText('c-spare.txt').count(), 0)
    assert.equal((await editor.innerText()).trim(), '')
    assert.deepEqual(tab.problems, [])
  })

  test('a pasted file joins the list, not the text, and is sent', async () => {
    const { page } = tab
    await pasteFiles(page, '#composer lexxy-editor [contenteditable="true"]', [await picture('screenshot.png', 400, 300)])
    assert.deepEqual(await composerFileNames(page), ['screenshot.png'])
    assert.equal(await page.locator('#composer lexxy-editor').locator('img, action-text-attachment, figure').count(), 0)
    await sendAndWaitForFiles(page, 1)
    assert.equal(await page.locator('#message-area .messages > .message').last().locator(`img[src^="${REPRESENTATION}"]`).count(), 1)
    assert.deepEqual(tab.problems, [])
  })

  test('a file dropped on the composer is listed and sent, as one dropped on the room is', async () => {
    const { page } = tab
    await dropFiles(page, '#composer lexxy-editor [contenteditable="true"]', [textFile('dropped-here.txt', 'on the composer')])
    assert.deepEqual(await composerFileNames(page), ['dropped-here.txt'])
    assert.equal((await page.getByRole('textbox', { name: 'Write a message' }).innerText()).trim(), '')
    await sendAndWaitForFiles(page, 1)
    assert.match(await page.locator('#message-area .messages > .message').last().innerText(), /dropped-here\.txt/)
    assert.deepEqual(tab.problems, [])
  })

  test('a refused upload marks only its own pending message as failed, and the files after it still go', async (tt) => {
    const small = await startCampfire(tt, { CAMPFIRE_MAX_UPLOAD_MB: '1' })
    const other = await openTab(browser, small.baseUrl)
    tt.after(() => other.context.close())
    await signIn(other, 'david@37signals.com')
    await other.page.goto(`/rooms/${small.labels['rooms.hq']}`)
    await waitUntilLive(other.page)
    const { page } = other
    await dropFiles(page, '#message-area .messages', [textFile('a-first.txt', 'first'), { name: 'b-too-big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(1536 * 1024, 7) }, textFile('c-last.txt', 'last')])
    await page.getByRole('button', { name: 'Send Message' }).click()
    const failed = page.locator('.message--failed')
    await failed.waitFor()
    await page.waitForFunction(`document.querySelectorAll('.message--pending:not(.message--failed)').length === 0`)
    assert.equal(await failed.count(), 1)
    assert.match(await failed.innerText(), /b-too-big\.bin/)
    assert.equal(await failed.getAttribute('title'), 'Not sent: That file is too large: the limit is 1 MB.')
    assert.equal(await page.evaluate(`getComputedStyle(document.querySelector('.message--failed .message__body-content'), '::after').content`), '"Not sent: That file is too large: the limit is 1 MB."')
    await screenshot(page, 'attachments-refused-desktop-light')
    const messages = page.locator('#message-area .messages > .message')
    assert.match(await messages.nth(-3).innerText(), /a-first\.txt/)
    assert.match(await messages.nth(-1).innerText(), /c-last\.txt/)
    assert.equal(await messages.nth(-1).getAttribute('data-message-id') !== null, true)
    assert.deepEqual(other.problems.filter((problem) => !/HTTP 413|status of 413/.test(problem)), [])
  })
})

interface Shared {
  title?: string
  files: { name: string; type: string; size: number }[]
}

// Notes every message id a Turbo Stream brings (the post's answer and the room's broadcast
// alike) in window.streamed, and stands in for the system share sheet, which Chromium on Linux
// does not have, by keeping what it was asked to share in window.shared.
async function recordStreamsAndShares(page: Page): Promise<void> {
  await page.addInitScript(`
    window.streamed = []
    window.shared = []
    window.lastChangeAt = performance.now()
    document.addEventListener('turbo:before-stream-render', (event) => {
      window.lastChangeAt = performance.now()
      for (const message of event.detail.newStream.querySelector('template')?.content.children ?? []) if (message.classList.contains('message')) window.streamed.push(message.id)
    })
    for (const type of ['turbo:before-fetch-request', 'turbo:frame-render', 'turbo:load']) document.addEventListener(type, () => (window.lastChangeAt = performance.now()))
    Object.assign(navigator, {
      canShare: (data) => !!data,
      share: async (data) => {
        window.shared.push({ title: data.title, files: (data.files ?? []).map((file) => ({ name: file.name, type: file.type, size: file.size })) })
      },
    })
  `)
}

// Each message has come twice, as the post's answer and on the room's stream, so it will not be
// replaced again. On a loaded machine the room's socket can be between subscriptions when the
// broadcast goes out (Action Cable does not replay it; the room catches up by fetching, not by a
// stream), so a message that is on the page while nothing has been streamed or fetched for 2 s
// is settled too.
async function settled(page: Page, ids: string[]): Promise<void> {
  await page.waitForFunction(`${JSON.stringify(ids)}.every((id) => window.streamed.filter((s) => s === id).length >= 2) ||
    (${JSON.stringify(ids)}.every((id) => document.getElementById(id)) && performance.now() - window.lastChangeAt > 2000)`, undefined, { polling: 100 })
}

function naturalSize(image: Locator): Promise<{ width: number; height: number }> {
  return image.evaluate((img) => {
    const picture = img as unknown as { decode(): Promise<void>; naturalWidth: number; naturalHeight: number }
    return picture.decode().then(() => ({ width: picture.naturalWidth, height: picture.naturalHeight }))
  })
}

async function composerFileNames(page: Page): Promise<string[]> {
  return page.locator('#composer .composer__file').evaluateAll((items) => items.map((item) => item.getAttribute('aria-label')!.replace(/^Remove /, '')))
}

async function messageCount(page: Page): Promise<number> {
  return page.locator('#message-area .messages > .message[data-message-id]').count()
}

async function sendAndWaitForFiles(page: Page, count: number): Promise<void> {
  const before = await messageCount(page)
  await page.getByRole('button', { name: 'Send Message' }).click()
  await page.waitForFunction(`document.querySelectorAll('#message-area .messages > .message[data-message-id]').length === ${before + count}`)
  await page.locator('.message--pending').first().waitFor({ state: 'detached' })
}

async function openMenu(page: Page, selector: string) {
  const message = page.locator(selector).last()
  await message.scrollIntoViewIfNeeded()
  await message.hover()
  await message.locator('.message__options-btn').click()
  const menu = message.locator('.message__actions-menu')
  await menu.waitFor()
  return menu
}

async function sharedCount(page: Page): Promise<number> {
  return page.evaluate('window.shared.length') as Promise<number>
}

function fetchText(page: Page, url: string): Promise<string> {
  return page.evaluate(`fetch(${JSON.stringify(url)}).then((response) => response.text())`) as Promise<string>
}

function contentTypeOf(page: Page, url: string): Promise<string | null> {
  return page.evaluate(`fetch(${JSON.stringify(url)}).then((response) => response.headers.get('content-type'))`) as Promise<string | null>
}
