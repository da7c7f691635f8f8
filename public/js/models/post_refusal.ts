// What to tell the person when a post is not accepted, whatever the answer was. A room that is
// gone (or no longer theirs) answers with a new composer-frame saying so, which replaces the
// composer; every other refusal becomes a short reason on the failed message.

export interface Refusal {
  reason: string
  // The server's replacement for turbo-frame#composer-frame, when it sent one.
  composerFrame: HTMLElement | null
}

const REASONS: Record<number, string> = {
  400: 'the message could not be read',
  401: 'you are signed out; sign in again',
  403: 'you may not post in this room',
  404: 'this room was deleted or you are no longer in it',
  409: 'the message clashed with another; try again',
  413: 'the message is too large',
  415: 'the message could not be read',
  422: 'the message was refused',
  429: 'too many messages at once; try again in a moment',
  507: 'the server is out of disk space; try again in a few minutes',
}

export function describeStatus(status: number): string {
  if (status === 0) return 'Campfire could not be reached; check your connection'
  return REASONS[status] ?? (status >= 500 ? `the server had a problem (${status}); try again` : `the server answered ${status}`)
}

export function refusalFrom(status: number, contentType: string, text: string): Refusal {
  let composerFrame: HTMLElement | null = null
  let reason: string | null = null
  if (contentType.startsWith('text/html')) {
    const parsed = new DOMParser().parseFromString(text, 'text/html')
    composerFrame = parsed.querySelector<HTMLElement>('turbo-frame#composer-frame')
    const said = composerFrame?.textContent?.trim()
    if (said) reason = said.replace(/\.$/, '').toLowerCase()
  } else if (contentType.startsWith('text/vnd.turbo-stream.html')) {
    // A refusal as a Turbo Stream (a full disk): its template says why.
    const parsed = new DOMParser().parseFromString(text, 'text/html')
    const said = parsed.querySelector('turbo-stream template')?.innerHTML
    const sentence = said ? new DOMParser().parseFromString(said, 'text/html').body.textContent?.trim().replace(/\.$/, '') : ''
    if (sentence) reason = sentence.charAt(0).toLowerCase() + sentence.slice(1)
  } else if (contentType.startsWith('application/json')) {
    try {
      const { error } = JSON.parse(text) as { error?: unknown }
      if (typeof error === 'string') reason = error
    } catch {
      // Not JSON after all: the status says it.
    }
  }
  return { reason: reason ?? describeStatus(status), composerFrame }
}

// Puts the server's composer-frame in place of the page's, so the person sees why.
export function showComposerFrame(frame: HTMLElement | null): void {
  if (!frame) return
  document.getElementById('composer-frame')?.replaceWith(document.importNode(frame, true))
}
