import assert from 'node:assert/strict'
import { test } from 'node:test'
import { installPlatform } from '../../../server/routes/users/install-platform.ts'

const USER_AGENTS = {
  iphoneSafari: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1',
  iphoneChrome: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/130.0.6723.90 Mobile/15E148 Safari/604.1',
  ipadSafari: 'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  androidChrome: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  androidFirefox: 'Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0',
  androidSamsung: 'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
  windowsChrome: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  windowsEdge: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  linuxChrome: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
  macSafari: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  macFirefox: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.7; rv:133.0) Gecko/20100101 Firefox/133.0',
  windowsFirefox: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  macOpera: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0',
} as const

test('every browser on an iPhone or iPad is told to add Campfire to the Home Screen, named as it is', () => {
  assert.deepEqual(installPlatform(USER_AGENTS.iphoneSafari), { steps: 'ios', browser: 'Safari', system: 'iPhone' })
  assert.deepEqual(installPlatform(USER_AGENTS.iphoneChrome), { steps: 'ios', browser: 'Chrome', system: 'iPhone' })
  assert.deepEqual(installPlatform(USER_AGENTS.ipadSafari), { steps: 'ios', browser: 'Safari', system: 'iPad' })
})

test('Chrome and Firefox on Android get their own menu steps; other Android browsers a general note', () => {
  assert.deepEqual(installPlatform(USER_AGENTS.androidChrome), { steps: 'android-chrome', browser: 'Chrome', system: 'Android' })
  assert.deepEqual(installPlatform(USER_AGENTS.androidFirefox), { steps: 'android-firefox', browser: 'Firefox', system: 'Android' })
  assert.deepEqual(installPlatform(USER_AGENTS.androidSamsung), { steps: 'other', browser: 'Samsung Internet', system: 'Android' })
})

test('Chrome and Edge on a computer are pointed at the install icon in the address bar', () => {
  assert.deepEqual(installPlatform(USER_AGENTS.windowsChrome), { steps: 'desktop-chromium', browser: 'Chrome', system: 'Windows' })
  assert.deepEqual(installPlatform(USER_AGENTS.windowsEdge), { steps: 'desktop-chromium', browser: 'Edge', system: 'Windows' })
  assert.deepEqual(installPlatform(USER_AGENTS.linuxChrome), { steps: 'desktop-chromium', browser: 'Chrome', system: 'Linux' })
})

test('Safari on a Mac adds Campfire to the Dock', () => {
  assert.deepEqual(installPlatform(USER_AGENTS.macSafari), { steps: 'mac-safari', browser: 'Safari', system: 'macOS' })
})

test('desktop Firefox, which cannot install web apps, gets no steps; an unknown browser gets the general note', () => {
  assert.equal(installPlatform(USER_AGENTS.macFirefox), null)
  assert.equal(installPlatform(USER_AGENTS.windowsFirefox), null)
  assert.deepEqual(installPlatform(USER_AGENTS.macOpera), { steps: 'other', browser: 'Opera', system: 'macOS' })
  assert.deepEqual(installPlatform(undefined), { steps: 'other', browser: 'your browser', system: 'your computer' })
  assert.deepEqual(installPlatform('curl/8.5.0'), { steps: 'other', browser: 'your browser', system: 'your computer' })
})
