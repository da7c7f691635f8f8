import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { chromiumAvailable, launchBrowser, openTab, screenshot, signIn, waitUntilLive, type Tab } from './support/browser.ts'
import { startCampfire, type Campfire } from './support/campfire.ts'
import { grayPng } from '../support/images.ts'

// The browser tests' one run on the harness-shaped seed (the others use the development seed;
// CAMPFIRE_TEST_SEED=harness runs any of them on this one): David opens every room he is in,
// Designers with one message of every presentation type among them, and the Broken room whose
// message lost its author. Every picture loads, the page raises no error and no request fails.
const DAVIDS_ROOMS = ['pets', 'hq', 'watercooler', 'designers', 'david_and_jason', 'david_and_kevin', 'quiet', 'archive', 'broken', 'group_direct']

describe('the harness seed in a real browser', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  const cleanups: (() => Promise<void> | void)[] = []
  const t = { after: (fn: () => Promise<void> | void) => void cleanups.push(fn) }
  let campfire: Campfire
  let browser: Browser
  let david: Tab

  before(async () => {
    campfire = await startCampfire(t, {}, 'harness')
    browser = await launchBrowser(t)
    david = await openTab(browser, campfire.baseUrl)
    // The embeds' pictures are on their own sites (example.com, pbs.twimg.com), which this machine
    // cannot reach: a stand-in picture answers for them.
    await david.context.route((url) => url.origin !== new URL(campfire.baseUrl).origin, (route) => route.fulfill({ contentType: 'image/png', body: grayPng(4, 4) }))
    await signIn(david, String(campfire.labels['emails.david']))
  })

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  // The pictures that do not load; lazy ones are asked for now rather than scrolled to.
  const brokenImages = (page: Page): Promise<string[]> =>
    page.evaluate(`(async () => {
      const images = [...document.querySelectorAll('#message-area img')]
      const results = await Promise.allSettled(images.map((image) => ((image.loading = 'eager'), image.decode())))
      return images.filter((image, i) => results[i].status === 'rejected' || image.naturalWidth === 0).map((image) => image.src)
    })()`)

  test('every room David is in opens live, with every picture loaded and no page error or failed request', async () => {
    const { page } = david
    for (const room of DAVIDS_ROOMS) {
      await page.goto(`/rooms/${campfire.labels[`rooms.${room}`]}`)
      await waitUntilLive(page)
      await page.waitForLoadState('networkidle')
      assert.deepEqual(await brokenImages(page), [], `pictures in ${room}`)
      if (room === 'broken') await screenshot(page, 'harness-broken-desktop-light')
    }
    assert.deepEqual(david.problems, [])
  })

  test('Designers shows its thumbnails, the video with its poster, the files, the sounds, the table’s cells and both mentions', async () => {
    const { page } = david
    const seen = david.problems.length
    await page.goto(`/rooms/${campfire.labels['rooms.designers']}/@${campfire.labels['messages.plain']}`)
    await waitUntilLive(page)
    await page.waitForLoadState('networkidle')
    const message = (label: string) => page.locator(`#message-area [data-message-id="${campfire.labels[`messages.${label}`]}"]`)
    for (const label of ['image', 'image_large']) assert.equal(await message(label).locator('img.message__attachment').count(), 1, label)
    assert.match(await message('video').locator('video').getAttribute('poster') ?? '', /\/rails\/active_storage\//)
    for (const [label, name] of [['file', 'launch-notes.txt'], ['file_bmp', 'pixel.bmp']]) await message(label!).getByText(name!).first().waitFor()
    await message('table').getByText('Programming').waitFor()
    assert.equal(await message('sound_image').locator('.sound').count(), 1)
    assert.equal(await message('mention').locator('.mention').count(), 1)
    assert.equal(await message('mention_marshal').locator('.mention').count(), 1, 'the Rails 7 mention of David')
    assert.deepEqual(await brokenImages(page), [])
    await screenshot(page, 'harness-designers-desktop-light')
    assert.deepEqual(david.problems.slice(seen), [])
  })
})
