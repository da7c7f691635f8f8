// Which "install Campfire as a web app" steps suit the browser that asks (upstream's
// pwa/_install_instructions, read from ApplicationPlatform): the browser's own way of
// installing, named as it names it.
//   ios              any browser on an iPhone or iPad (all are Safari underneath): Share, then
//                    Add to Home Screen; push notifications need it there
//   android-chrome   Chrome on Android: the ⋮ menu, Install app
//   android-firefox  Firefox on Android: the ⋮ menu, Install
//   desktop-chromium Chrome or Edge on a computer: the install icon in the address bar
//   mac-safari       Safari on a Mac: File, Add to Dock…
//   other            anything else that may install web apps: a general note
// Desktop Firefox cannot install web apps, so it gets none (null), as upstream.
// Upstream also gives none to every Chrome, though its partial has steps for Chrome on Android
// and iOS; those steps show here, and desktop Chrome gets Edge's, since both offer the install
// prompt the "Install now" button uses.
export type InstallSteps = 'ios' | 'android-chrome' | 'android-firefox' | 'desktop-chromium' | 'mac-safari' | 'other'

export interface InstallPlatform {
  steps: InstallSteps
  // The browser and the system as the steps name them ("Safari", "iPhone").
  browser: string
  system: string
}

// Android browsers built on Chrome that say "Chrome" in their header but install their own way.
const OTHER_ANDROID_CHROMIUMS = /EdgA\/|SamsungBrowser\/|OPR\/|YaBrowser\/|UCBrowser\/|DuckDuckGo\/|Brave/

export function installPlatform(userAgent: string | undefined): InstallPlatform | null {
  const ua = userAgent ?? ''
  const browser = browserName(ua)
  if (/iPhone|iPad|iPod/.test(ua)) return { steps: 'ios', browser, system: /iPad/.test(ua) ? 'iPad' : 'iPhone' }
  if (/Android/.test(ua)) {
    if (/Firefox\//.test(ua)) return { steps: 'android-firefox', browser, system: 'Android' }
    if (/Chrome\//.test(ua) && !OTHER_ANDROID_CHROMIUMS.test(ua)) return { steps: 'android-chrome', browser, system: 'Android' }
    return { steps: 'other', browser, system: 'Android' }
  }
  const system = systemName(ua)
  if (/Firefox\//.test(ua)) return null
  if (/Edg\//.test(ua) || (/Chrome\//.test(ua) && !/OPR\/|Vivaldi\//.test(ua))) return { steps: 'desktop-chromium', browser, system }
  if (/Macintosh/.test(ua) && /Safari\//.test(ua) && /Version\//.test(ua)) return { steps: 'mac-safari', browser, system }
  return { steps: 'other', browser, system }
}

function browserName(ua: string): string {
  if (/EdgA?\/|EdgiOS\//.test(ua)) return 'Edge'
  if (/Firefox\/|FxiOS\//.test(ua)) return 'Firefox'
  if (/OPR\/|OPiOS\//.test(ua)) return 'Opera'
  if (/SamsungBrowser\//.test(ua)) return 'Samsung Internet'
  if (/Chrome\/|CriOS\//.test(ua)) return 'Chrome'
  if (/Safari\//.test(ua)) return 'Safari'
  return 'your browser'
}

function systemName(ua: string): string {
  if (/Macintosh/.test(ua)) return 'macOS'
  if (/Windows/.test(ua)) return 'Windows'
  if (/CrOS/.test(ua)) return 'ChromeOS'
  if (/Linux/.test(ua)) return 'Linux'
  return 'your computer'
}
