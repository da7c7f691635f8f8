import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { chromiumAvailable, launchBrowser, openTab, openTabBeside, sendMessage, signIn, waitUntilLive, type Tab } from './support/browser.ts'
import { startCampfire, type Campfire } from './support/campfire.ts'

// Two people, David and Jason, each in their own browser context, looking at the same room.
describe('two tabs in a real browser', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  let campfire: Campfire
  let browser: Browser
  let david: Tab
  let jason: Tab
  let roomPath: string
  const cleanups: (() => Promise<void> | void)[] = []

  before(async () => {
    const t = { after: (fn: () => Promise<void> | void) => void cleanups.push(fn) }
    campfire = await startCampfire(t)
    browser = await launchBrowser(t)
    roomPath = `/rooms/${campfire.labels['rooms.watercooler']}`
    david = await openTab(browser, campfire.baseUrl)
    jason = await openTab(browser, campfire.baseUrl)
    await signIn(david, 'david@37signals.com')
    await signIn(jason, 'jason@37signals.com')
    for (const tab of [david, jason]) {
      await tab.page.goto(roomPath)
      await waitUntilLive(tab.page)
    }
  })

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  const messageIn = (tab: Tab, text: string) => tab.page.locator('#message-area .message', { hasText: text })

  test('exchange live messages, each shown at once to its sender and replaced by the server copy', async () => {
    await sendMessage(david.page, 'Hello from David’s tab')
    await messageIn(jason, 'Hello from David’s tab').waitFor()
    await sendMessage(jason.page, 'Hello back from Jason')
    await messageIn(david, 'Hello back from Jason').waitFor()

    const mine = messageIn(david, 'Hello from David’s tab')
    await mine.and(david.page.locator('[data-message-id]')).waitFor()
    assert.equal(await mine.count(), 1)
    assert.match(await mine.getAttribute('class') ?? '', /message--me/)
    assert.doesNotMatch(await messageIn(jason, 'Hello from David’s tab').getAttribute('class') ?? '', /message--me/)
    assert.deepEqual([...david.problems, ...jason.problems], [])
  })

  test('keep the menu open on a message just sent when the room’s copy of it arrives after the post’s answer', async () => {
    const tab = await openTabBeside(david)
    const { page } = tab
    const text = 'Menu open while my copy lands'
    const held: string[] = []
    let holding = true
    let release!: () => void
    let heard!: () => void
    const broadcast = new Promise<void>((resolve) => (heard = resolve))
    await page.routeWebSocket(/\/cable/, (socket) => {
      const server = socket.connectToServer()
      release = () => { holding = false; for (const frame of held.splice(0)) socket.send(frame) }
      socket.onMessage((frame) => server.send(frame))
      server.onMessage((frame) => {
        if (holding && typeof frame === 'string' && frame.includes(text)) {
          held.push(frame)
          heard()
        } else socket.send(frame)
      })
    })
    await page.goto(roomPath)
    await waitUntilLive(page)

    await sendMessage(page, text)
    const mine = page.locator('#message-area .message[data-message-id]', { hasText: text })
    await mine.waitFor()
    await broadcast
    await mine.hover()
    await mine.locator('.message__options-btn').click()
    await mine.locator('.message__actions-menu').waitFor()
    await mine.evaluate((message) => { (message as unknown as { marked: boolean }).marked = true })

    const rendered = page.evaluate(`new Promise((resolve) => document.addEventListener('turbo:before-stream-render', (event) => {
      if (!event.target.querySelector('template')?.innerHTML.includes(${JSON.stringify(text)})) return
      const render = event.detail.render
      event.detail.render = async (stream) => { await render(stream); requestAnimationFrame(() => setTimeout(resolve)) }
    }))`)
    release()
    await rendered
    assert.equal(await mine.count(), 1)
    assert.equal(await mine.evaluate((message) => (message as unknown as { marked?: boolean }).marked === true), true, 'the copy on the page is the one whose menu is open')
    assert.equal(await mine.locator('.message__actions-menu').isVisible(), true)
    assert.deepEqual(tab.problems, [])
    await page.close()
  })

  test('let a request the page gave up on go without an error, while any other unhandled rejection is still one', async () => {
    const tab = await openTabBeside(david)
    await tab.page.goto(roomPath)
    await waitUntilLive(tab.page)
    await tab.page.evaluate('(() => { const controller = new AbortController(); controller.abort(); Promise.reject(controller.signal.reason) })()')
    await tab.page.evaluate("(() => { Promise.reject(new Error('a real failure')) })()")
    await tab.page.waitForFunction('new Promise((resolve) => setTimeout(() => resolve(true), 100))')
    assert.equal(tab.problems.length, 1, tab.problems.join('\n'))
    assert.match(tab.problems[0]!, /^page error on \S+: a real failure$/)
    await tab.page.close()
  })

  test('show who is typing, and offer the room’s people after @', async () => {
    const editor = jason.page.getByRole('textbox', { name: 'Write a message' })
    await editor.click()
    await editor.pressSequentially('Thinking about it')
    await david.page.getByText('Jason Fried is typing…').waitFor()
    await jason.page.keyboard.press('ControlOrMeta+a')
    await jason.page.keyboard.press('Backspace')
    await david.page.getByText('Jason Fried is typing…').waitFor({ state: 'hidden' })

    const davidsEditor = david.page.getByRole('textbox', { name: 'Write a message' })
    await davidsEditor.click()
    await davidsEditor.pressSequentially('Over to you @Jason F')
    await david.page.locator('.lexxy-prompt-menu--visible', { hasText: 'Jason Fried' }).waitFor()
    await david.page.locator('.lexxy-prompt-menu--visible', { hasText: 'Zimdars' }).waitFor({ state: 'hidden' })
    await david.page.keyboard.press('Enter')
    await david.page.locator('#composer .mention, #composer action-text-attachment').first().waitFor()
    await david.page.keyboard.press('Enter')
    const mention = messageIn(jason, 'Over to you').and(jason.page.locator('[data-message-id]'))
    await mention.waitFor()
    assert.match(await mention.getAttribute('class') ?? '', /message--mentioned/)
    assert.equal(await mention.locator('.mention').count(), 1)
    assert.deepEqual([...david.problems, ...jason.problems], [])
  })

  test('load older messages when scrolled to the top, and copy a message’s permalink', async () => {
    const messages = jason.page.locator('#message-area .messages > .message[data-message-id]')
    const before = await messages.count()
    await jason.page.locator('#message-area .messages').evaluate((list) => list.scrollTo({ top: 0 }))
    await jason.page.waitForFunction(`document.querySelectorAll('#message-area .messages > .message[data-message-id]').length > ${before}`)

    const message = messageIn(jason, 'Hello from David’s tab')
    await message.scrollIntoViewIfNeeded()
    await message.hover()
    await message.locator('.message__options-btn').click()
    await message.getByRole('button', { name: 'Copy link' }).click()
    await message.locator('.btn--success').waitFor()
    const copied = String(await jason.page.evaluate('navigator.clipboard.readText()'))
    assert.match(copied, new RegExp(`^${campfire.baseUrl}/rooms/\\d+/@\\d+$`))
    await jason.page.keyboard.press('Escape')
    assert.deepEqual([...david.problems, ...jason.problems], [])
  })

  test('show edits and deletions live in the other tab', async () => {
    await sendMessage(david.page, 'A message with a typo')
    const message = messageIn(david, 'A message with a typo').and(david.page.locator('[data-message-id]'))
    await message.waitFor()
    await messageIn(jason, 'A message with a typo').waitFor()

    await message.hover()
    await message.locator('.message__options-btn').click()
    await message.getByRole('link', { name: 'Edit' }).click()
    const editor = david.page.getByRole('textbox', { name: 'Edit message' })
    await editor.click()
    await david.page.keyboard.press('ControlOrMeta+a')
    await editor.pressSequentially('A message without a typo')
    await david.page.getByRole('button', { name: 'Save changes' }).click()
    await messageIn(jason, 'A message without a typo').waitFor()
    await messageIn(david, 'A message without a typo').waitFor()

    const edited = messageIn(david, 'A message without a typo')
    await edited.hover()
    await edited.locator('.message__options-btn').click()
    await edited.getByRole('link', { name: 'Edit' }).click()
    await david.page.getByRole('button', { name: 'Delete', exact: true }).click()
    await david.page.getByRole('button', { name: 'Delete message' }).click()
    await messageIn(jason, 'A message without a typo').waitFor({ state: 'detached' })
    await messageIn(david, 'A message without a typo').waitFor({ state: 'detached' })
    assert.deepEqual([...david.problems, ...jason.problems], [])
  })

  test('neutralise a stored-XSS payload typed into the editor', async () => {
    const payload = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'
    await sendMessage(david.page, payload)
    for (const tab of [david, jason]) {
      const message = messageIn(tab, '<img src=x onerror').and(tab.page.locator('[data-message-id]'))
      await message.waitFor()
      assert.equal(await message.locator('script, img[src="x"], [onerror]').count(), 0)
      assert.equal(await tab.page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss), undefined)
    }
    await jason.page.reload()
    await waitUntilLive(jason.page)
    await messageIn(jason, '<img src=x onerror').waitFor()
    assert.equal(await jason.page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss), undefined)
    assert.deepEqual([...david.problems, ...jason.problems], [])
  })

  test('show a room created in one tab in the other tab’s sidebar at once, unread until visited', async () => {
    await jason.page.locator('#shared_rooms .room').first().waitFor()
    await david.page.getByRole('link', { name: 'New Chat Room' }).click()
    await david.page.getByRole('textbox', { name: 'Name this room' }).fill('Browser Testing')
    await david.page.getByRole('button', { name: 'Save' }).click()
    await david.page.waitForURL(/\/rooms\/\d+$/)
    const newRoom = jason.page.locator('#shared_rooms').getByRole('link', { name: 'Browser Testing' })
    await newRoom.waitFor()

    await waitUntilLive(david.page)
    await sendMessage(david.page, 'First words in the new room')
    await jason.page.locator('#shared_rooms .room.unread', { hasText: 'Browser Testing' }).waitFor()
    await newRoom.click()
    await messageIn(jason, 'First words in the new room').waitFor()
    await jason.page.locator('#shared_rooms .room[aria-current="page"]:not(.unread)', { hasText: 'Browser Testing' }).waitFor()
    assert.deepEqual([...david.problems, ...jason.problems], [])
  })

  test('start a Ping by picking a person from the autocomplete, keeping the picker through a sidebar reload', async () => {
    await jason.page.goto(roomPath)
    await waitUntilLive(jason.page)
    await jason.page.getByRole('link', { name: 'New Ping' }).click()
    const field = jason.page.locator('#rooms_direct_user_ids_input')
    await field.pressSequentially('Kev')
    await jason.page.getByRole('option', { name: 'Kevin McConnell' }).click()
    await jason.page.locator('.autocomplete__pill', { hasText: 'Kevin McConnell' }).waitFor()
    const picker = await jason.page.locator('turbo-frame#direct_rooms_control').elementHandle()
    // The sidebar reloads itself when the tab comes back after a while (and after reconnects).
    const reloaded = jason.page.waitForResponse((r) => r.url().endsWith('/users/me/sidebar'))
    await jason.page.evaluate("window.dispatchEvent(new CustomEvent('refresh-room:visible'))")
    await reloaded
    await jason.page.waitForTimeout(300)
    assert.equal(await picker!.evaluate((node) => node.isConnected), true)
    await jason.page.locator('.autocomplete__pill', { hasText: 'Kevin McConnell' }).waitFor()
    await jason.page.getByRole('button', { name: 'Start Ping' }).click()
    await jason.page.waitForURL(/\/rooms\/\d+$/)
    await jason.page.locator('#nav h1', { hasText: 'Kevin McConnell' }).waitFor()
    assert.deepEqual([...david.problems, ...jason.problems], [])
  })

  test('keep a Ping picker through sidebar reloads: one still loading, whichever starts first, and one open with results and a caret', async () => {
    const page = jason.page
    // Holds the next response for a path until released, so the two loads overlap every time.
    const hold = async (path: string) => {
      let release!: () => void
      const released = new Promise<void>((resolve) => (release = resolve))
      let arrived!: () => void
      const requested = new Promise<void>((resolve) => (arrived = resolve))
      await page.route((url) => url.pathname === path, async (route) => {
        arrived()
        await released
        await route.continue().catch(() => {})
      }, { times: 1 })
      return { requested, release }
    }
    const reloadSidebar = () => page.evaluate("window.dispatchEvent(new CustomEvent('refresh-room:visible'))")
    const sidebarLoaded = () => page.waitForResponse((r) => r.url().endsWith('/users/me/sidebar'))
    const field = page.locator('#rooms_direct_user_ids_input')

    for (const first of ['picker', 'sidebar'] as const) {
      await page.goto(roomPath)
      await waitUntilLive(page)
      await page.getByRole('link', { name: 'New Ping' }).waitFor()
      // Let the sidebar's own reload on channel connect finish before racing a new one.
      await page.waitForLoadState('networkidle')
      const picker = await hold('/rooms/directs/new')
      const sidebar = await hold('/users/me/sidebar')
      const reloaded = sidebarLoaded()
      if (first === 'picker') {
        await page.getByRole('link', { name: 'New Ping' }).click()
        await picker.requested
        await reloadSidebar()
        await sidebar.requested
      } else {
        await reloadSidebar()
        await sidebar.requested
        await page.getByRole('link', { name: 'New Ping' }).click()
        await picker.requested
      }
      sidebar.release()
      await reloaded
      picker.release()
      await field.pressSequentially('Kev')
      await page.getByRole('option', { name: 'Kevin McConnell' }).click()
      await page.locator('.autocomplete__pill', { hasText: 'Kevin McConnell' }).waitFor()
      await page.unrouteAll({ behavior: 'ignoreErrors' })
    }

    // Someone typing in the open picker keeps the results shown and the caret through a reload.
    await field.pressSequentially('Da')
    const davidOption = page.getByRole('option', { name: 'David Heinemeier Hansson' })
    await davidOption.waitFor()
    const rendered = page.evaluate(`new Promise((resolve) => {
      document.querySelector('#user_sidebar').addEventListener('turbo:frame-render', (event) => {
        if (event.target === event.currentTarget) resolve()
      })
    })`)
    await reloadSidebar()
    await rendered
    assert.equal(await davidOption.isVisible(), true)
    assert.equal(await field.evaluate((input: { ownerDocument: { activeElement: unknown } }) => input === input.ownerDocument.activeElement), true)
    await page.keyboard.type('v')
    assert.equal(await field.inputValue(), 'Dav')
    await davidOption.click()
    await page.locator('.autocomplete__pill', { hasText: 'David Heinemeier Hansson' }).waitFor()
    assert.equal(await page.locator('.autocomplete__pill', { hasText: 'Kevin McConnell' }).count(), 1)

    // The picker's Cancel still brings back the plain list after those reloads.
    await page.getByRole('link', { name: 'Cancel changes' }).click()
    await field.waitFor({ state: 'detached' })
    await page.getByRole('link', { name: 'New Ping' }).waitFor()
    assert.deepEqual([...david.problems, ...jason.problems], [])
  })

  test('search finds a message and links back to it', async () => {
    await david.page.goto(roomPath)
    await waitUntilLive(david.page)
    await david.page.getByRole('link', { name: 'Search' }).click()
    const box = david.page.getByRole('searchbox', { name: 'search' })
    await box.fill('Jason')
    await box.press('Enter')
    await david.page.waitForURL(/\/searches\?q=Jason/)
    const result = david.page.locator('#search-results .message', { hasText: 'Hello back from Jason' })
    await result.waitFor()
    await result.locator('.message__permalink').click()
    await david.page.waitForURL(/\/rooms\/\d+\/@\d+$/)
    await david.page.locator('.message.search-highlight', { hasText: 'Hello back from Jason' }).waitFor()
    assert.deepEqual([...david.problems, ...jason.problems], [])
  })
})
