// Which "install as a web app" steps suit the browser: none where the browser offers its own
// install button or cannot install web apps (desktop Chrome and Edge, desktop Firefox).
export type InstallPlatform = 'ios' | 'android' | 'mac-safari' | null

export function installPlatform(userAgent: string | undefined): InstallPlatform {
  const ua = userAgent ?? ''
  if (/iPhone|iPad|iPod/.test(ua)) return 'ios'
  if (/Android/.test(ua)) return 'android'
  if (/Firefox|Chrome|Chromium|Edg\//.test(ua)) return null
  if (/Macintosh/.test(ua) && /Safari/.test(ua)) return 'mac-safari'
  return null
}
