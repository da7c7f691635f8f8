import { rubyStrip } from './html.ts'
import { cleanFragment } from './clean.ts'
import { BODY_POLICY } from './policy.ts'
import { serialize } from './serialize.ts'

// Text with none of these characters parses to a single text node that serialises back unchanged.
const NEEDS_PARSING = /[<>&\r\0\u00a0]/

// The write-time sanitiser for message bodies. Its output is what gets stored: the input stripped and
// parsed as Action Text does, with everything off the allow-list removed. Removing or unwrapping an
// element can, rarely, give markup that parses into a different tree, so it repeats until stable,
// which makes sanitizeBody(sanitizeBody(x)) === sanitizeBody(x). HTML nesting elements more than
// MAX_NESTING deep is refused with NestingTooDeep.
export function sanitizeBody(html: string): string {
  const stripped = rubyStrip(html)
  if (!NEEDS_PARSING.test(stripped)) return stripped
  return settle(stripped, 0)
}

function settle(html: string, round: number): string {
  const cleaned = rubyStrip(serialize(cleanFragment(html, BODY_POLICY, { strict: true })))
  return cleaned === html || round === 4 ? cleaned : settle(cleaned, round + 1)
}
