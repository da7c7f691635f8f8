// The symbol Rails' Mime::Type.lookup gives a content type (actionpack's registered types and
// their synonyms), which upstream uses as a webhook attachment's extension: image/png is
// "png", image/jpeg "jpeg", text/csv "csv". Parameters and case are ignored.
const SYMBOLS: Record<string, string> = {
  'text/html': 'html', 'application/xhtml+xml': 'html',
  'text/plain': 'text',
  'text/javascript': 'js', 'application/javascript': 'js', 'application/x-javascript': 'js',
  'text/css': 'css',
  'text/calendar': 'ics',
  'text/csv': 'csv',
  'text/vcard': 'vcf',
  'text/vtt': 'vtt',
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/bmp': 'bmp',
  'image/tiff': 'tiff',
  'image/svg+xml': 'svg',
  'image/webp': 'webp',
  'video/mpeg': 'mpeg',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'audio/aac': 'm4a',
  'video/webm': 'webm',
  'video/mp4': 'mp4',
  'font/otf': 'otf',
  'font/ttf': 'ttf',
  'font/woff': 'woff',
  'font/woff2': 'woff2',
  'application/xml': 'xml', 'text/xml': 'xml', 'application/x-xml': 'xml',
  'application/rss+xml': 'rss',
  'application/atom+xml': 'atom',
  'application/x-yaml': 'yaml', 'text/yaml': 'yaml',
  'multipart/form-data': 'multipart_form',
  'application/x-www-form-urlencoded': 'url_encoded_form',
  'application/json': 'json', 'text/x-json': 'json', 'application/jsonrequest': 'json',
  'application/pdf': 'pdf',
  'application/zip': 'zip',
  'application/gzip': 'gzip', 'application/x-gzip': 'gzip',
}

export function mediaTypeOf(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase()
}

// The registered symbol, or null for a type Rails does not know.
export function mimeSymbol(contentType: string): string | null {
  return Object.hasOwn(SYMBOLS, mediaTypeOf(contentType)) ? SYMBOLS[mediaTypeOf(contentType)]! : null
}
