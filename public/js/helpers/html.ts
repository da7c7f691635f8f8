// Parses HTML that came from our own server (message fragments) into nodes; never used for
// text typed by anyone, which is always set with textContent.
export function serverFragment(html: string): DocumentFragment {
  const template = document.createElement('template')
  template.innerHTML = html
  return template.content
}

// The autocomplete endpoint sends names HTML-escaped; this turns them back into plain text.
export function unescapeText(escaped: string): string {
  return new DOMParser().parseFromString(`<!doctype html><body>${escaped}`, 'text/html').body.textContent ?? ''
}

export function uuid(): string {
  return crypto.randomUUID()
}
