import { parseDbTime } from '../../lib/time.ts'

export type LogoSize = 'large' | 'small' | 'maskable'

// Time#to_fs(:number) ("20260301120000", UTC) followed by the microseconds: upstream stops at
// the second, so a logo replaced twice within one would keep its URL, and the cached old picture.
export function numberTime(value: string): string {
  const ms = parseDbTime(value) ?? 0
  const micros = /\.(\d{1,6})/.exec(value)?.[1]?.padEnd(6, '0') ?? '000000'
  return new Date(Math.floor(ms)).toISOString().slice(0, 19).replace(/\D/g, '') + micros
}

// fresh_account_logo_path: /account/logo?size=small&v=<updated_at> (keys sorted, as to_query
// writes them). The account's updated_at moves when the logo changes, so the URL can be cached.
export function accountLogoPath(account: { updated_at: string } | null | undefined, size: LogoSize = 'large'): string {
  const query = [size === 'large' ? '' : `size=${size}`, account ? `v=${numberTime(account.updated_at)}` : ''].filter(Boolean).join('&')
  return query ? `/account/logo?${query}` : '/account/logo'
}

// Custom styles go into a <style> element as they are; only a closing tag is defused (`<\/style`
// means the same to CSS), so the styles can never end the element and start markup.
export function styleElementText(css: string): string {
  return css.replace(/<\/(style)/gi, '<\\/$1')
}
