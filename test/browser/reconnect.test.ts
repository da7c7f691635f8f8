import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { CookieJar, formPost, request } from '../support/server-process.ts'
import { chromiumAvailable, launchBrowser, openTab, signIn, waitUntilLive } from './support/browser.ts'
import { PASSWORD, startCampfire } from './support/campfire.ts'

// While the server restarts the page cannot hear anything; when its socket comes back it asks
// /rooms/:id/refresh for what it missed.
describe('after a server restart', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('the room page reconnects and catches up on messages posted while it was away', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const roomId = campfire.labels['rooms.watercooler']
    const david = await openTab(browser, campfire.baseUrl)
    await signIn(david, 'david@37signals.com')
    await david.page.goto(`/rooms/${roomId}`)
    await waitUntilLive(david.page)
    await david.page.waitForLoadState('networkidle')
    const settled = david.problems.length

    const source = david.page.locator('turbo-cable-stream-source').first()
    await campfire.restart()
    const jason = new CookieJar()
    await request(campfire.baseUrl, jason, '/session', formPost({ email_address: 'jason@37signals.com', password: PASSWORD }))
    // Posted before the page has reconnected: only the catch-up can bring it.
    const reconnected = source.evaluate((element) => element.hasAttribute('connected'))
    assert.equal(await reconnected, false)
    const refresh = david.page.waitForRequest((r) => /\/rooms\/\d+\/refresh\?since=\d+&reason=reconnection/.test(r.url()), { timeout: 30_000 })
    const posted = await request(campfire.baseUrl, jason, `/rooms/${roomId}/messages`, formPost({ 'message[body]': '<div>Posted during the restart</div>' }))
    assert.equal(posted.status, 303)
    await refresh
    await david.page.locator('#message-area .message', { hasText: 'Posted during the restart' }).waitFor()
    await david.page.locator('turbo-cable-stream-source[connected]').first().waitFor({ state: 'attached' })

    // While the server is down, the socket and any request in flight are refused (or answered
    // 503 while it shuts down); that is expected. A page error, or anything else, is not.
    const expected = /WebSocket connection to .* failed|ERR_CONNECTION_REFUSED|status of 503|^HTTP 503 /
    assert.deepEqual(david.problems.slice(0, settled), [])
    assert.deepEqual(david.problems.slice(settled).filter((p) => !expected.test(p)), [])
  })
})
