import { createHash } from 'node:crypto'

// Active Storage names a variant by its transformations: variation_digest is the strict Base64
// of SHA-1 over Marshal.dump of the transformations hash (ActiveStorage::Variation#digest), so
// a variant record we write is one Rails finds, and one Rails wrote is one we find. Only the
// few kinds of value a transformations hash holds are written: symbols, UTF-8 strings,
// integers, arrays and hashes, in Ruby's Marshal format 4.8.

export type RubyValue = { symbol: string } | { hash: ReadonlyArray<readonly [RubyValue, RubyValue]> } | string | number | readonly RubyValue[]

export const symbol = (name: string): RubyValue => ({ symbol: name })

// A hash with symbol keys, in the order given (Ruby hashes keep insertion order).
export function rubyHash(entries: Record<string, RubyValue>): RubyValue {
  return { hash: Object.entries(entries).map(([key, value]) => [symbol(key), value] as const) }
}

export function marshalDump(value: RubyValue): Buffer {
  const out: number[] = [4, 8]
  const symbols: string[] = []
  const write = (v: RubyValue): void => {
    if (typeof v === 'number') {
      out.push(0x69, ...fixnum(v))
    } else if (typeof v === 'string') {
      const bytes = Buffer.from(v, 'utf8')
      out.push(0x49, 0x22, ...fixnum(bytes.length), ...bytes, ...fixnum(1))
      writeSymbol('E')
      out.push(0x54)
    } else if ('symbol' in v) {
      writeSymbol(v.symbol)
    } else if ('hash' in v) {
      out.push(0x7b, ...fixnum(v.hash.length))
      for (const [key, item] of v.hash) {
        write(key)
        write(item)
      }
    } else {
      out.push(0x5b, ...fixnum(v.length))
      for (const item of v) write(item)
    }
  }
  const writeSymbol = (name: string): void => {
    const seen = symbols.indexOf(name)
    if (seen !== -1) return void out.push(0x3b, ...fixnum(seen))
    symbols.push(name)
    const bytes = Buffer.from(name, 'utf8')
    out.push(0x3a, ...fixnum(bytes.length), ...bytes)
  }
  write(value)
  return Buffer.from(out)
}

export function variationDigest(transformations: RubyValue): string {
  return createHash('sha1').update(marshalDump(transformations)).digest('base64')
}

// Marshal's compact integer ("long"): 0; 1..122 as n + 5; -123..-1 as n - 5; otherwise a count of
// little-endian bytes (negative for negative numbers) and the bytes.
function fixnum(n: number): number[] {
  if (!Number.isInteger(n) || Math.abs(n) >= 2 ** 30) throw new RangeError(`Marshal fixnum out of range: ${n}`)
  if (n === 0) return [0]
  if (n > 0 && n < 123) return [n + 5]
  if (n < 0 && n > -124) return [(n - 5) & 0xff]
  const bytes: number[] = []
  let rest = n
  for (let i = 0; i < 4; i++) {
    bytes.push(rest & 0xff)
    rest >>= 8
    if ((n >= 0 && rest === 0) || (n < 0 && rest === -1)) break
  }
  return [n >= 0 ? bytes.length : (256 - bytes.length) & 0xff, ...bytes]
}
