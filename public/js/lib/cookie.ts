// Small first-party cookies the page itself reads and writes (the bell's first-run marks).
const TWENTY_YEARS_SECONDS = 20 * 365 * 24 * 60 * 60

export function getCookie(name: string): string | undefined {
  const prefix = `${encodeURIComponent(name)}=`
  const found = document.cookie.split('; ').find((cookie) => cookie.startsWith(prefix))
  return found === undefined ? undefined : decodeURIComponent(found.slice(prefix.length))
}

export function setCookie(name: string, value: string): void {
  const secure = location.protocol === 'https:' ? '; secure' : ''
  document.cookie = `${encodeURIComponent(name)}=${encodeURIComponent(value)}; path=/; max-age=${TWENTY_YEARS_SECONDS}; samesite=lax${secure}`
}
