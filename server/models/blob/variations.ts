import { rubyHash, symbol, variationDigest, type RubyValue } from '../../lib/rails/variation.ts'

// The variants Campfire declares (User#avatar :square, Account#logo :large and :small,
// Message#attachment :thumb), as the effective transformations Active Storage digests: `format`
// first, a Symbol when the variant names it, else the original's extension as a String.
export interface Variation {
  digest: string
  width: number
  height: number
  format: 'webp' | 'png' | 'jpeg' | 'gif'
}

function variation(format: RubyValue, width: number, height: number, output: Variation['format']): Variation {
  return { digest: variationDigest(rubyHash({ format, resize_to_limit: [width, height] })), width, height, format: output }
}

export const AVATAR_SQUARE = variation(symbol('webp'), 512, 512, 'webp')
export const LOGO_LARGE = variation(symbol('png'), 512, 512, 'png')
export const LOGO_SMALL = variation(symbol('png'), 192, 192, 'png')

// A thumbnail keeps a web image's own format, named by its file's extension (case kept).
const WEB_IMAGE_FORMATS: Record<string, Variation['format']> = { jpg: 'jpeg', jpeg: 'jpeg', png: 'png', gif: 'gif', webp: 'webp' }

export function thumbVariation(extension: string): Variation {
  const format = WEB_IMAGE_FORMATS[extension.toLowerCase()]
  return format ? variation(extension, 1200, 800, format) : variation(symbol('png'), 1200, 800, 'png')
}
