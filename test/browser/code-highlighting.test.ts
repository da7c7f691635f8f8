import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import Database from 'better-sqlite3'
import type { Locator, Page } from 'playwright-core'
import { startCampfire, type Campfire } from './support/campfire.ts'
import { chromiumAvailable, launchBrowser, openTab, PHONE, screenshot, signIn, waitUntilLive, type Tab } from './support/browser.ts'

const RUBY = '<pre>def greet(name)\n  "Hello, #{name}"\nend</pre>'
// As Lexxy posts a code block: the picked language on the <pre>, lines split by <br>.
const PYTHON_FROM_LEXXY = '<pre data-language="python">def total(items):<br>    return sum(items)</pre>'
const PLAIN = '<pre data-language="plain">def not_code_at_all</pre>'
const MARKED_UP = '<pre><strong>def</strong> left_as_written</pre>'
const PAGED_RUST = '<pre>fn main() {\n    let mut total: u32 = 0;\n    for n in 1..=10 { total += n; }\n    println!("from an older page: {}", total);\n}</pre>'

async function postAsBot(campfire: Campfire, body: string): Promise<void> {
  const { labels } = campfire
  const response = await fetch(`${campfire.baseUrl}/rooms/${labels['rooms.watercooler']}/${labels['bot_keys.bender']}/messages`, { method: 'POST', body })
  assert.equal(response.status, 201, await response.text())
}

function codeIn(page: Page, text: string): Locator {
  return page.locator('#message-area .message[data-message-id] pre', { hasText: text })
}

async function waitForHighlight(block: Locator): Promise<void> {
  await block.and(block.page().locator('pre[data-highlighted]')).waitFor()
}

// Code blocks in messages are coloured by highlight.js in the browser: on page load, as messages
// arrive over the cable, in pages loaded by scrolling up, after an edit and in what Lexxy sends.
test('code blocks in messages are highlighted in the browser', { skip: !chromiumAvailable() && 'chromium is not installed' }, async (t) => {
  const campfire = await startCampfire(t)
  // An old message in the busy room becomes code, so it only arrives with a page of history.
  await campfire.restart(() => {
    const db = new Database(join(campfire.storage, 'db', 'production.sqlite3'))
    db.prepare("UPDATE action_text_rich_texts SET body = ? WHERE record_type = 'Message' AND record_id = ?").run(PAGED_RUST, campfire.labels['messages.busy_005'])
    db.close()
  })
  for (const body of [RUBY, PYTHON_FROM_LEXXY, PLAIN, MARKED_UP]) await postAsBot(campfire, body)

  const browser = await launchBrowser(t)
  const tab: Tab = await openTab(browser, campfire.baseUrl)
  const { page } = tab
  await signIn(tab, 'david@37signals.com')
  const roomPath = `/rooms/${campfire.labels['rooms.watercooler']}`
  await page.goto(roomPath)
  await waitUntilLive(page)

  // The server's HTML is the same for everyone: plain <pre>s, coloured only once in the browser.
  const served = await (await page.request.get(roomPath)).text()
  assert.match(served, /<pre>def greet\(name\)/)
  assert.doesNotMatch(served, /hljs/)

  // On page load: guessed among the twelve languages when nothing says which, or as Lexxy marked it.
  const ruby = codeIn(page, 'def greet')
  await waitForHighlight(ruby)
  assert.match(await ruby.getAttribute('class') ?? '', /\bhljs\b.*\blanguage-ruby\b/)
  assert.equal(await ruby.locator('.hljs-keyword', { hasText: 'def' }).count(), 1)
  assert.equal(await ruby.innerText(), 'def greet(name)\n  "Hello, #{name}"\nend')

  const python = codeIn(page, 'def total')
  await waitForHighlight(python)
  assert.match(await python.getAttribute('class') ?? '', /\blanguage-python\b/)
  assert.equal(await python.innerText(), 'def total(items):\n    return sum(items)')
  assert.ok(await python.locator('.hljs-built_in', { hasText: 'sum' }).count() >= 1)

  // "Plain text" stays plain, and a block with markup of its own is left as written.
  await waitForHighlight(codeIn(page, 'not_code_at_all'))
  assert.equal(await codeIn(page, 'not_code_at_all').locator('span').count(), 0)
  await page.waitForTimeout(0)
  assert.equal(await codeIn(page, 'left_as_written').locator('[class^="hljs"]').count(), 0)
  assert.equal(await codeIn(page, 'left_as_written').locator('strong').count(), 1)

  // The keyword colour differs from the text colour: the theme applies.
  type Styles = { getComputedStyle(element: unknown): { color: string } }
  const colourOf = (element: Locator) => element.evaluate((node) => (globalThis as unknown as Styles).getComputedStyle(node).color)
  assert.notEqual(await colourOf(ruby.locator('.hljs-keyword').first()), await colourOf(ruby))

  // Over the cable.
  await postAsBot(campfire, '<pre>SELECT name FROM users WHERE id = 1;</pre>')
  const sql = codeIn(page, 'SELECT name')
  await waitForHighlight(sql)
  assert.match(await sql.getAttribute('class') ?? '', /\blanguage-sql\b/)

  // Written in Lexxy: a code block opened with ``` is sent with its language and shown highlighted.
  const editor = page.getByRole('textbox', { name: 'Write a message' })
  await editor.click()
  await editor.pressSequentially('``` ')
  await editor.pressSequentially('const answer = 42')
  await page.keyboard.press('Enter')
  const javascript = codeIn(page, 'const answer')
  // (The server's copy replaces the pending one, perhaps twice: from the response and the cable.)
  await javascript.and(page.locator('pre.hljs.language-javascript')).waitFor()
  assert.equal(await javascript.getAttribute('data-language'), 'javascript')
  assert.equal(await javascript.locator('.hljs-keyword', { hasText: 'const' }).count(), 1)

  // After an edit, the message comes back from the server and is highlighted again.
  const message = page.locator('#message-area .message[data-message-id]', { has: page.locator('pre', { hasText: 'const answer' }) })
  const id = await message.getAttribute('data-message-id')
  await message.hover()
  await message.locator('.message__options-btn').click()
  await message.getByRole('link', { name: 'Edit' }).click()
  const editing = page.getByRole('textbox', { name: 'Edit message' })
  await editing.waitFor()
  await page.locator(`#message_body_${id}`).evaluate((element, html) => {
    ;(element as unknown as { value: string }).value = html
  }, '<pre data-language="go">package main<br>func main() {}</pre>')
  await page.getByRole('button', { name: 'Save changes' }).click()
  const go = codeIn(page, 'package main')
  await go.and(page.locator('pre.hljs.language-go')).waitFor()
  assert.equal(await go.innerText(), 'package main\nfunc main() {}')

  await screenshot(page, 'code-highlighting-desktop-light')

  // A page of history, loaded by scrolling up.
  const rust = codeIn(page, 'from an older page')
  for (let attempt = 0; attempt < 10 && (await rust.count()) === 0; attempt++) {
    const count = await page.locator('#message-area .messages > .message[data-message-id]').count()
    await page.locator('#message-area .messages').evaluate((list) => list.scrollTo({ top: 0 }))
    await page.waitForFunction(`document.querySelectorAll('#message-area .messages > .message[data-message-id]').length !== ${count}`)
  }
  await waitForHighlight(rust)
  assert.match(await rust.getAttribute('class') ?? '', /\blanguage-rust\b/)

  for (const [viewport, scheme, name] of [[undefined, 'dark', 'desktop-dark'], [PHONE, 'light', 'phone-light'], [PHONE, 'dark', 'phone-dark']] as const) {
    const other = await openTab(browser, campfire.baseUrl, { viewport, colorScheme: scheme })
    await signIn(other, 'david@37signals.com')
    await other.page.goto(roomPath)
    await waitUntilLive(other.page)
    await waitForHighlight(codeIn(other.page, 'package main'))
    await codeIn(other.page, 'def greet').scrollIntoViewIfNeeded()
    await screenshot(other.page, `code-highlighting-${name}`)
    assert.deepEqual(other.problems, [])
  }
  assert.deepEqual(tab.problems, [])
})
