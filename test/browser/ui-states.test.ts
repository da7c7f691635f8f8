import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import Database from 'better-sqlite3'
import type { Browser, Locator, Page } from 'playwright-core'
import { chromiumAvailable, DESKTOP, launchBrowser, openTab, PHONE, screenshot, sendMessage, signIn, waitUntilLive, type Tab } from './support/browser.ts'
import { startCampfire, type Campfire } from './support/campfire.ts'

// The room's moving parts, as David, Jason and Kevin see them at desktop width: who is typing,
// a mention in a sentence, hovering, editing and where keyboard focus goes.
describe('the room in its states', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  let campfire: Campfire
  let browser: Browser
  let david: Tab
  let jason: Tab
  let kevin: Tab
  let busy: string
  const cleanups: (() => Promise<void> | void)[] = []

  before(async () => {
    const t = { after: (fn: () => Promise<void> | void) => void cleanups.push(fn) }
    campfire = await startCampfire(t)
    browser = await launchBrowser(t)
    busy = `/rooms/${campfire.labels['rooms.watercooler']}`
    david = await openTab(browser, campfire.baseUrl)
    jason = await openTab(browser, campfire.baseUrl)
    kevin = await openTab(browser, campfire.baseUrl)
    await signIn(david, 'david@37signals.com')
    await signIn(jason, 'jason@37signals.com')
    await signIn(kevin, 'kevin@37signals.com')
    for (const tab of [david, jason, kevin]) {
      await tab.page.goto(busy)
      await waitUntilLive(tab.page)
    }
  })

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  const box = async (locator: Locator) => (await locator.boundingBox())!
  const overlaps = (a: { x: number; y: number; width: number; height: number }, b: { x: number; y: number; width: number; height: number }) =>
    a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
  const activeElement = (page: Page) =>
    page.evaluate("({ inComposer: !!document.activeElement?.closest('#composer'), className: String(document.activeElement?.className ?? '') })") as Promise<{ inComposer: boolean; className: string }>
  const inComposer = (page: Page) => page.waitForFunction("!!document.activeElement?.closest('#composer')")
  const lastMessage = (page: Page) => page.locator('#message-area .messages > .message[data-message-id]').last()

  test('names two people typing on one line beside a spinner, covering neither the last message nor the composer', async () => {
    for (const tab of [jason, kevin]) {
      await tab.page.getByRole('textbox', { name: 'Write a message' }).click()
      await tab.page.keyboard.type('Thinking it over')
    }
    const status = david.page.getByRole('status').filter({ hasText: 'are typing' })
    await status.waitFor()
    assert.equal(await status.textContent(), 'Jason Fried and Kevin McConnell are typing…')
    const indicator = await box(david.page.locator('.typing-indicator'))
    assert.ok(indicator.height < 24, `one line, not a column of words (${indicator.height}px)`)
    assert.ok(indicator.width > 150, `a line of text (${indicator.width}px)`)
    assert.equal(overlaps(indicator, await box(lastMessage(david.page).locator('.message__body-content'))), false, 'the last message is not covered')
    assert.equal(overlaps(indicator, await box(david.page.locator('#composer .composer__input'))), false, 'the composer is not covered')
    assert.equal(await david.page.locator('.typing-indicator__spinner').isVisible(), true)
    for (const tab of [jason, kevin]) {
      await tab.page.keyboard.press('ControlOrMeta+a')
      await tab.page.keyboard.press('Backspace')
    }
    await david.page.getByText('are typing').waitFor({ state: 'hidden' })
    assert.deepEqual([...david.problems, ...jason.problems, ...kevin.problems], [])
  })

  test('keeps a mention inside its sentence, in the room and in the plain text pushes and webhooks send', async () => {
    const editor = david.page.getByRole('textbox', { name: 'Write a message' })
    await editor.click()
    await editor.pressSequentially('Hi @Kevin M')
    await david.page.locator('.lexxy-prompt-menu--visible', { hasText: 'Kevin McConnell' }).waitFor()
    // The last key once the list is open, as in the inbox test (mentions-inbox.test.ts).
    await editor.pressSequentially('c')
    await david.page.locator('.lexxy-prompt-menu--visible', { hasText: 'Bender' }).waitFor({ state: 'hidden' })
    await david.page.keyboard.press('Enter')
    await david.page.locator('#composer .mention, #composer action-text-attachment').first().waitFor()
    await editor.pressSequentially('can you check the deploy?')
    await david.page.keyboard.press('Enter')

    const posted = jason.page.locator('#message-area .message[data-message-id]', { hasText: 'check the deploy' })
    await posted.waitFor()
    const paragraphs = posted.locator('.trix-content p')
    assert.equal(await paragraphs.count(), 1, 'one paragraph, not split at the mention')
    assert.equal((await paragraphs.first().innerText()).replace(/\s+/g, ' ').trim(), 'Hi Kevin McConnell can you check the deploy?')
    const mention = paragraphs.first().locator('.mention')
    assert.equal(await mention.count(), 1)
    const [line, text] = [await box(mention), await box(paragraphs.first())]
    assert.ok(line.height < 30 && text.height < 40, `the mention sits in the line of text (${line.height}px in ${text.height}px)`)

    const id = Number(await posted.getAttribute('data-message-id'))
    const db = new Database(join(campfire.storage, 'db', 'production.sqlite3'), { readonly: true })
    try {
      const plain = db.prepare('SELECT body FROM message_search_index WHERE rowid = ?').pluck().get(id)
      assert.equal(plain, 'Hi @Kevin McConnell can you check the deploy?')
    } finally {
      db.close()
    }
    assert.deepEqual([...david.problems, ...jason.problems], [])
  })

  test('moves neither a message without boosts nor the one below it when the mouse comes over it', async () => {
    const messages = jason.page.locator('#message-area .messages > .message[data-message-id]:not(:has(.boost))')
    const target = messages.nth((await messages.count()) - 2)
    await target.scrollIntoViewIfNeeded()
    const next = target.locator('xpath=following-sibling::div[contains(@class, "message")][1]')
    await jason.page.mouse.move(5, 5)
    const [bubble, below] = [await box(target.locator('.message__body-content')), await box(next)]
    await target.locator('.message__body-content').hover()
    await target.locator('.boost__action').waitFor()
    assert.deepEqual(await box(target.locator('.message__body-content')), bubble, 'the bubble keeps its size')
    assert.deepEqual(await box(next), below, 'the message below stays put')
  })

  test('focuses the composer on page load and after switching rooms', async () => {
    await david.page.goto(busy)
    await waitUntilLive(david.page)
    await inComposer(david.page)
    await david.page.locator('#user_sidebar .room', { hasText: 'HQ' }).first().click()
    await david.page.waitForURL(`**/rooms/${campfire.labels['rooms.hq']}`)
    await waitUntilLive(david.page)
    await inComposer(david.page)
    assert.equal((await activeElement(david.page)).inComposer, true)
  })

  test('puts focus in the edit field when Edit is pressed with Enter, and back in the composer after saving', async () => {
    await sendMessage(david.page, 'Focus follows the keyboard')
    const message = lastMessage(david.page)
    await message.and(david.page.locator('.message--me', { hasText: 'Focus follows the keyboard' })).waitFor()
    await message.locator('.message__options-btn').focus()
    await david.page.keyboard.press('Enter')
    await message.getByRole('link', { name: 'Edit' }).focus()
    await david.page.keyboard.press('Enter')
    const field = david.page.getByRole('textbox', { name: 'Edit message' })
    await field.waitFor()
    await david.page.waitForFunction("document.activeElement?.closest('lexxy-editor')?.getAttribute('aria-label') === 'Edit message'")
    await david.page.keyboard.type(' and lands in place')
    await david.page.keyboard.press('ControlOrMeta+Enter')
    await david.page.locator('.message', { hasText: 'Focus follows the keyboard and lands in place' }).locator('.trix-content').waitFor()
    await inComposer(david.page)
    assert.deepEqual(david.problems, [])
  })

  test('returns focus to the message’s menu button when Escape closes the menu and after a quick boost', async () => {
    const message = lastMessage(david.page)
    const button = message.locator('.message__options-btn')
    await button.focus()
    await david.page.keyboard.press('Enter')
    await message.locator('.message__actions-menu').waitFor()
    await david.page.keyboard.press('Tab')
    await david.page.keyboard.press('Escape')
    await message.locator('.message__actions-menu').waitFor({ state: 'hidden' })
    assert.match((await activeElement(david.page)).className, /message__options-btn/)

    await david.page.keyboard.press('Enter')
    await message.locator('.quick-boosts button').first().focus()
    await david.page.keyboard.press('Enter')
    await message.locator('.boost').first().waitFor()
    assert.match((await activeElement(david.page)).className, /message__options-btn/)
    assert.deepEqual(david.problems, [])
  })

  test('edits in the width of the message column, keeping author and time, and deletes only after an in-page confirmation', async () => {
    await sendMessage(david.page, 'Short')
    const message = david.page.locator('#message-area .message.message--me[data-message-id]', { hasText: 'Short' }).last()
    await message.waitFor()
    const column = await box(message)
    await message.hover()
    await message.locator('.message__options-btn').click()
    await message.getByRole('link', { name: 'Edit' }).click()
    await david.page.getByRole('textbox', { name: 'Edit message' }).waitFor()
    const editing = await box(message.locator('.message__body-content'))
    assert.ok(editing.width > column.width * 0.8, `the editor is ${editing.width}px of a ${column.width}px message`)
    assert.equal(await message.locator('.message__author').innerText(), 'David Heinemeier Hansson')
    assert.notEqual(await message.locator('.message__timestamp').innerText(), '')
    const actions = message.locator('.message__edit-actions')
    const [del, save] = [await box(actions.getByRole('button', { name: 'Delete', exact: true })), await box(actions.getByRole('button', { name: 'Save changes' }))]
    assert.ok(Math.abs(del.y - save.y) < 4, 'Delete is on the row with Save')

    let dialogs = 0
    david.page.on('dialog', () => void dialogs++)
    await actions.getByRole('button', { name: 'Delete', exact: true }).click()
    await david.page.getByText('Delete this message for everyone?').waitFor()
    assert.equal((await activeElement(david.page)).className.includes('btn'), true)
    await david.page.keyboard.press('Escape')
    await david.page.getByText('Delete this message for everyone?').waitFor({ state: 'hidden' })
    await actions.getByRole('button', { name: 'Delete', exact: true }).click()
    await message.getByRole('button', { name: 'Delete message' }).click()
    await message.waitFor({ state: 'detached' })
    assert.equal(dialogs, 0, 'no browser dialog')
    await inComposer(david.page)
    assert.deepEqual(david.problems, [])
  })

  test('shows a focus ring on Attach a file', async () => {
    await david.page.locator('#composer input[type="file"]').focus()
    await david.page.keyboard.press('Shift+Tab')
    await david.page.keyboard.press('Tab')
    const outline = await david.page.evaluate("getComputedStyle(document.querySelector('#composer .composer__attachment-btn')).outlineStyle")
    assert.equal(outline, 'solid')
  })

  // Saves each state at desktop and phone widths, light and dark, to tmp/screenshots/ for review
  // (state-<what>-<width>-<scheme>.png), with the same browser and the same people as above.
  test('are drawn in every state at desktop and phone widths, light and dark, without an error', async () => {
    const fresh = await david.page.evaluate(async () => {
      const response = await fetch('/rooms/opens', { method: 'POST', body: new URLSearchParams({ 'room[name]': 'Fresh start' }) })
      return new URL(response.url).pathname
    })
    assert.match(fresh, /^\/rooms\/\d+$/)
    const quiet = `/rooms/${campfire.labels['rooms.quiet_corner']}`
    const settle = (page: Page) => page.waitForFunction("!document.getAnimations().some((a) => String(a.effect?.pseudoElement).startsWith('::view-transition'))")
    let fileSent = false
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const tab = await openTab(browser, campfire.baseUrl, { viewport, colorScheme })
        await tab.context.addCookies(await david.context.cookies())
        const { page } = tab
        const shoot = async (what: string) => {
          await settle(page)
          await screenshot(page, `state-${what}-${width}-${colorScheme}`)
        }
        await page.goto(busy)
        await waitUntilLive(page)
        await page.waitForTimeout(300)
        await shoot('mention')

        for (const other of [jason, kevin]) {
          await other.page.getByRole('textbox', { name: 'Write a message' }).click()
          await other.page.keyboard.type('Typing for the picture')
        }
        await page.getByRole('status').filter({ hasText: 'are typing' }).waitFor()
        await page.waitForTimeout(250)
        await shoot('typing')
        for (const other of [jason, kevin]) {
          await other.page.keyboard.press('ControlOrMeta+a')
          await other.page.keyboard.press('Backspace')
        }
        await page.getByText('are typing').waitFor({ state: 'hidden' })

        const plain = page.locator('#message-area .messages > .message[data-message-id]:not(:has(.boost))').last()
        if (width === 'desktop') {
          await plain.locator('.message__body-content').hover()
          await shoot('hover')
        }
        await plain.locator('.message__options-btn').click()
        await plain.locator('.message__actions-menu').waitFor()
        await shoot('menu')
        await page.keyboard.press('Escape')

        const mine = page.locator('#message-area .messages > .message.message--me[data-message-id]').last()
        await mine.locator('.message__options-btn').click()
        await mine.getByRole('link', { name: 'Edit' }).click()
        await page.getByRole('textbox', { name: 'Edit message' }).waitFor()
        await page.waitForTimeout(300)
        await shoot('editing')
        await page.getByRole('button', { name: 'Delete', exact: true }).click()
        await shoot('editing-delete')
        await page.getByRole('link', { name: 'Cancel' }).click()
        await page.getByRole('textbox', { name: 'Edit message' }).waitFor({ state: 'detached' })

        if (width === 'phone') {
          const composer = page.getByRole('textbox', { name: 'Write a message' })
          await composer.click()
          await composer.pressSequentially('A long message typed on a phone, to see how many words fit on each line of the composer before it wraps.')
          await shoot('composer-long')
          const [text, input] = [await box(page.locator('#composer lexxy-editor')), await box(page.locator('#composer .composer__input'))]
          assert.ok(text.width > input.width * 0.55, `the text gets ${text.width}px of the ${input.width}px composer`)
          const options = await box(page.locator('#message-area .message__options-btn').last())
          assert.ok(options.width >= 24 && options.height >= 24, `the ⋯ button is ${options.width}×${options.height}px to touch`)
          await page.keyboard.press('ControlOrMeta+a')
          await page.keyboard.press('Backspace')

          await page.goto(quiet)
          await waitUntilLive(page)
          if (!fileSent) {
            await page.locator('#composer input[type="file"]').setInputFiles({ name: 'quarterly-planning-budget-final-version-reviewed-by-everyone.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n%%EOF\n') })
            await page.getByRole('button', { name: 'Send Message' }).click()
            fileSent = true
          }
          await page.locator('#message-area .message[data-message-id]', { hasText: 'quarterly-planning' }).waitFor()
          await page.waitForTimeout(300)
          await shoot('file')
          const file = page.locator('#message-area .message', { hasText: 'quarterly-planning' }).locator('.message__attachment-link')
          const rows = new Set(await Promise.all([file.locator('.message__attachment-icon'), file.locator('.message__attachment-filename'), file.getByRole('link', { name: /^Download/ })].map(async (part) => {
            const { y, height } = await box(part)
            return Math.round((y + height / 2) / 8)
          })))
          assert.equal(rows.size, 1, 'the file’s icon, name and download share one row')
        }

        await page.goto(fresh)
        await waitUntilLive(page)
        await shoot('empty-room')
        await page.goto('/searches')
        await page.getByRole('searchbox', { name: 'search' }).waitFor()
        await shoot('search-empty')
        await page.goto('/searches?q=zebracorn')
        await page.getByRole('searchbox', { name: 'search' }).waitFor()
        await shoot('search-none')
        assert.deepEqual(tab.problems, [], `${width} ${colorScheme}`)
        await tab.context.close()
      }
    }
  })
})
