import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { chromiumAvailable, launchBrowser, openTab, openTabBeside, signIn, waitUntilLive, type Tab } from './support/browser.ts'
import { startCampfire, type Campfire } from './support/campfire.ts'

// The sidebar's unread marks in Chromium, now that an open room's unread notice goes to a socket
// once until it shows the room again: Jason's two tabs watch rooms turn unread and read while
// David and Kevin post, and count the notices their sockets hear.
describe('unread rooms in the sidebar', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  let campfire: Campfire
  let browser: Browser
  let jason: Tab
  let jasonAgain: Tab
  let david: Tab
  let kevin: Tab
  const heard = new Map<Page, { roomId: number }[]>()
  const cleanups: (() => Promise<void> | void)[] = []
  const room = (label: string) => Number(campfire.labels[`rooms.${label}`])

  // Every unread notice a page's socket is sent, in order.
  function listen(page: Page): void {
    const notices: { roomId: number }[] = []
    heard.set(page, notices)
    page.on('websocket', (socket) =>
      socket.on('framereceived', ({ payload }) => {
        const frame = JSON.parse(String(payload)) as { identifier?: string; message?: { roomId?: number } }
        if (frame.identifier?.includes('UnreadRoomsChannel') && typeof frame.message?.roomId === 'number') notices.push({ roomId: frame.message.roomId })
      }),
    )
  }
  const noticesOf = (page: Page, roomId: number) => heard.get(page)!.filter((notice) => notice.roomId === roomId).length

  let posts = 0
  async function post(tab: Tab, roomId: number): Promise<void> {
    const response = await tab.context.request.post(`/rooms/${roomId}/messages`, {
      form: { 'message[body]': `Post ${++posts}`, 'message[client_message_id]': `unread-${posts}` },
      headers: { accept: 'text/vnd.turbo-stream.html' },
    })
    assert.equal(response.status(), 200)
  }

  const tile = (page: Page, roomId: number) => page.locator(`#shared_rooms a.room[data-room-id="${roomId}"]`)
  const unread = (page: Page, roomId: number) => page.waitForFunction(`document.querySelector('#shared_rooms .room[data-room-id="${roomId}"]')?.classList.contains('unread') === true`)
  const read = (page: Page, roomId: number) => page.waitForFunction(`document.querySelector('#shared_rooms .room[data-room-id="${roomId}"]')?.classList.contains('unread') === false`)
  const firstPing = (page: Page) => page.locator('#direct_rooms > *').first().getAttribute('id')

  // A Ping's notice, which always goes, after the posts shows that each socket has heard
  // everything sent to it before.
  async function heardEverything(): Promise<void> {
    const ping = room('david_and_jason')
    const before = [jason.page, jasonAgain.page].map((page) => noticesOf(page, ping))
    await post(david, ping)
    await Promise.all([jason.page, jasonAgain.page].map((page, n) => waitFor(() => noticesOf(page, ping) > before[n]!)))
  }

  async function waitFor(condition: () => boolean): Promise<void> {
    for (const started = Date.now(); !condition(); await new Promise((resolve) => setTimeout(resolve, 20))) {
      if (Date.now() - started > 10_000) throw new Error('timed out')
    }
  }

  async function open(page: Page, roomId: number): Promise<void> {
    await page.goto(`/rooms/${roomId}`)
    await waitUntilLive(page)
  }

  // Clicks a room in the sidebar (a Turbo visit: the socket and its sidebar stay).
  async function visit(page: Page, roomId: number): Promise<void> {
    await tile(page, roomId).click()
    await page.waitForURL(new RegExp(`/rooms/${roomId}$`))
    await waitUntilLive(page)
  }

  before(async () => {
    const t = { after: (fn: () => Promise<void> | void) => void cleanups.push(fn) }
    campfire = await startCampfire(t)
    browser = await launchBrowser(t)
    jason = await openTab(browser, campfire.baseUrl)
    david = await openTab(browser, campfire.baseUrl)
    kevin = await openTab(browser, campfire.baseUrl)
    await signIn(jason, 'jason@37signals.com')
    await signIn(david, 'david@37signals.com')
    await signIn(kevin, 'kevin@37signals.com')
    jasonAgain = await openTabBeside(jason)
    for (const page of [jason.page, jasonAgain.page]) {
      listen(page)
      await open(page, room('watercooler'))
    }
  })

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  test('a room turns unread on both tabs, stays unread through more posts, clears on a visit and turns unread again after leaving', async () => {
    const hq = room('hq')
    await post(david, hq)
    for (const page of [jason.page, jasonAgain.page]) await unread(page, hq)
    await post(david, hq)
    await post(kevin, hq)
    await heardEverything()
    for (const page of [jason.page, jasonAgain.page]) {
      assert.equal(await tile(page, hq).getAttribute('class').then((c) => c?.includes('unread')), true)
      assert.equal(noticesOf(page, hq), 1, 'three posts, one notice to each tab')
    }

    await visit(jason.page, hq)
    await read(jason.page, hq)
    // Reading it in one tab reads it in the other.
    await read(jasonAgain.page, hq)
    await post(david, hq)
    await unread(jasonAgain.page, hq)
    await jason.page.locator('#message-area .message', { hasText: `Post ${posts}` }).waitFor()
    assert.equal(await tile(jason.page, hq).getAttribute('class').then((c) => c?.includes('unread')), false, 'not on the tab that shows it')

    await visit(jason.page, room('watercooler'))
    await post(kevin, hq)
    await unread(jason.page, hq)
    assert.deepEqual([...jason.problems, ...jasonAgain.problems], [])
  })

  test('a Ping moves to the front on every new message, on both tabs', async () => {
    const withDavid = room('david_and_jason')
    const group = room('group')
    for (const [poster, ping] of [[david, withDavid], [kevin, group], [david, withDavid], [kevin, group], [kevin, group], [david, withDavid]] as const) {
      await post(poster, ping)
      for (const page of [jason.page, jasonAgain.page]) await page.waitForFunction(`document.querySelector('#direct_rooms > *')?.id.endsWith('_${ping}')`)
      assert.match((await firstPing(jason.page)) ?? '', new RegExp(`_${ping}$`))
    }
    assert.deepEqual([...jason.problems, ...jasonAgain.problems], [])
  })
})
