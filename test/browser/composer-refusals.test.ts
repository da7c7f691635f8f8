import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { chromiumAvailable, launchBrowser, openTab, screenshot, sendMessage, signIn, waitUntilLive } from './support/browser.ts'
import { startCampfire } from './support/campfire.ts'

// A post the server does not accept is never silently dropped: the pending copy says why it was
// not sent, whatever the status, and a room the person is no longer in replaces the composer
// with the server's "This room was deleted.", as upstream's client shows it.
describe('the composer when a post is refused', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('posting to a room you were just taken out of says so in the composer and on the message', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const room = campfire.labels['rooms.watercooler']
    const david = await openTab(browser, campfire.baseUrl)
    await signIn(david, 'david@37signals.com')
    await david.page.goto(`/rooms/${room}`)
    await waitUntilLive(david.page)

    const jason = await openTab(browser, campfire.baseUrl)
    await signIn(jason, 'jason@37signals.com')
    await jason.page.goto(`/rooms/closeds/${room}/edit`)
    await jason.page.getByText('Give David Heinemeier Hansson access to this room').locator('..').click()
    await Promise.all([jason.page.waitForURL(new RegExp(`/rooms/${room}$`)), jason.page.getByRole('button', { name: 'Save' }).click()])

    await sendMessage(david.page, 'Anyone still here?')
    await david.page.locator('#composer-frame [role="alert"]', { hasText: 'This room was deleted.' }).waitFor()
    const failed = david.page.locator('.message--failed', { hasText: 'Anyone still here?' })
    await failed.waitFor()
    assert.equal(await failed.getAttribute('title'), 'Not sent: this room was deleted')
    await screenshot(david.page, 'composer-room-deleted-desktop-light')
    assert.deepEqual(david.problems.filter((p) => !p.includes('404')), [])
  })

  test('any other refusal is shown on the pending message with its reason; a lost connection makes it wait and go out again', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const tab = await openTab(browser, campfire.baseUrl)
    const { page } = tab
    await signIn(tab, 'david@37signals.com')
    await page.goto(`/rooms/${campfire.labels['rooms.hq']}`)
    await waitUntilLive(page)

    // The server is real; only the answer to this one post is replaced, to reach statuses a
    // healthy server does not give on demand.
    await page.route('**/rooms/*/messages', (route) => (route.request().method() === 'POST' ? route.fulfill({ status: 503, contentType: 'text/plain', body: 'busy' }) : route.continue()), { times: 1 })
    await sendMessage(page, 'First try')
    await page.locator('.message--failed[title="Not sent: the server had a problem (503); try again"]', { hasText: 'First try' }).waitFor()

    await page.route('**/rooms/*/messages', (route) => (route.request().method() === 'POST' ? route.abort('connectionrefused') : route.continue()), { times: 1 })
    await sendMessage(page, 'Second try')
    await page.locator('.message--waiting', { hasText: 'Second try' }).waitFor()
    await page.locator('#message-area .message:not(.message--pending)', { hasText: 'Second try' }).waitFor()
    assert.equal(await page.locator('#composer lexxy-editor').count(), 1, 'the composer stays for refusals that are not about the room')
  })
})
