import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { startCampfire } from './support/campfire.ts'
import { chromiumAvailable, DESKTOP, launchBrowser, PHONE, SCREENSHOTS } from './support/browser.ts'

const OLD_CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36'
const OLD_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1'

// The page an old browser gets (Chromium here, telling the server it is an old Chrome or iPhone),
// on a desktop and a phone, light and dark, saved to tmp/screenshots/browser-gate-*.png.
test('the browser gate page, as an old browser sees it', { skip: !chromiumAvailable() && 'chromium is not installed' }, async (t) => {
  const campfire = await startCampfire(t)
  const browser = await launchBrowser(t)
  mkdirSync(SCREENSHOTS, { recursive: true })
  for (const [device, viewport, userAgent] of [['desktop', DESKTOP, OLD_CHROME], ['phone', PHONE, OLD_IPHONE]] as const) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ viewport, colorScheme, userAgent, isMobile: device === 'phone', hasTouch: device === 'phone', deviceScaleFactor: 1 })
      const page = await context.newPage()
      const failures: string[] = []
      page.on('requestfailed', (request) => failures.push(`${request.url()}: ${request.failure()?.errorText}`))
      page.on('pageerror', (error) => failures.push(error.message))
      const response = await page.goto(`${campfire.baseUrl}/session/new`)
      assert.equal(response?.status(), 406)
      assert.equal(await page.title(), 'Unsupported browser')
      await page.getByRole('heading', { level: 1, name: 'Upgrade to a supported web browser' }).waitFor()
      const browsers = page.locator('.browser-gate__browser')
      assert.deepEqual(await browsers.allInnerTexts(), ['Safari\n17.2+', 'Chrome\n120+', 'Firefox\n121+', 'Opera\n104+'])
      const icons = await browsers.locator('img').evaluateAll((images) => images.map((image) => (image as unknown as { naturalWidth: number }).naturalWidth))
      assert.deepEqual(icons.map((width) => width > 0), [true, true, true, true])
      await page.screenshot({ path: join(SCREENSHOTS, `browser-gate-${device}-${colorScheme}.png`) })
      assert.deepEqual(failures, [])
      await context.close()
    }
  }
})
