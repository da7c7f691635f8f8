// A string built piece by piece (`+=`, as templates do) is a tree of its pieces in V8. Every
// native read of it (join, Buffer.from, Buffer.byteLength, zlib) walks the whole tree again,
// which for a 40-message page costs milliseconds. Reading one character makes V8 copy it into
// one flat string in place, once, so a string kept in a cache and read many times is cheap.
export function flattened(text: string): string {
  if (text.length > 0) text.charCodeAt(0)
  return text
}

// Characters beyond Latin-1 as numeric character references. V8 stores a string whose
// characters all fit in a byte at one byte each, and a page made of such pieces converts to
// UTF-8 several times faster; one emoji in a shared template would make every page two bytes
// a character. Only for text the templates themselves supply (user content stays as written).
export function latin1Html(text: string): string {
  return text.replace(/[^\u0000-\u00ff]/gu, (character) => `&#x${character.codePointAt(0)!.toString(16).toUpperCase()};`)
}
