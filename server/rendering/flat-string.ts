// A string built piece by piece (`+=`, as templates do) is a tree of its pieces in V8. Every
// native read of it (join, Buffer.from, Buffer.byteLength, zlib) walks the whole tree again,
// which for a 40-message page costs milliseconds. Reading one character makes V8 copy it into
// one flat string in place, once, so a string kept in a cache and read many times is cheap.
export function flattened(text: string): string {
  if (text.length > 0) text.charCodeAt(0)
  return text
}

const BEYOND_LATIN1 = /[^\u0000-\u00ff]/

// A string to keep in a cache: flat, and one byte a character whenever its characters allow.
// V8 gives a string two bytes a character if any piece it was built from had them, even when
// every character fits in one (see latin1Html), so the copy through Latin-1 is what makes sure.
export function compacted(text: string): string {
  if (BEYOND_LATIN1.test(text)) return flattened(text)
  return Buffer.from(text, 'latin1').toString('latin1')
}

// What a string made by compacted() takes of V8's heap, apart from its header.
export function heapBytes(text: string): number {
  return BEYOND_LATIN1.test(text) ? 2 * text.length : text.length
}

// Characters beyond Latin-1 as numeric character references. V8 stores a string whose
// characters all fit in a byte at one byte each, and a page made of such pieces converts to
// UTF-8 several times faster; one emoji in a shared template would make every page two bytes
// a character. Only for text the templates themselves supply (user content stays as written).
//
// The result is compacted into a string of its own: what `replace` builds from a two-byte
// string can keep two bytes a character even when every character now fits in one (❤️, two
// replacements, did), and that one quick boost made every message fragment two bytes a
// character: twice the fragment cache's memory, and slower to turn into UTF-8.
export function latin1Html(text: string): string {
  return compacted(text.replace(/[^\u0000-\u00ff]/gu, (character) => `&#x${character.codePointAt(0)!.toString(16).toUpperCase()};`))
}
