const OPENGRAPH = 'application/vnd.actiontext.opengraph-embed'

interface Opengraph { title: string; url: string; image?: string; description?: string }

// Asks the server for a pasted link's OpenGraph card and returns the attachment to insert
// (all values set as attributes through the DOM, never as markup), or null.
export async function unfurl(url: string): Promise<string | null> {
  if (!/^https?:\/\//i.test(url)) return null
  try {
    const response = await fetch('/unfurl_link', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ url }),
      credentials: 'same-origin',
    })
    if (response.status !== 200) return null
    const card = (await response.json()) as Opengraph
    const attachment = document.createElement('action-text-attachment')
    attachment.setAttribute('content-type', OPENGRAPH)
    attachment.setAttribute('filename', String(card.title ?? '').slice(0, 280))
    attachment.setAttribute('href', String(card.url ?? url))
    if (card.image) attachment.setAttribute('url', String(card.image))
    attachment.setAttribute('caption', String(card.description ?? '').slice(0, 560))
    return attachment.outerHTML
  } catch {
    return null
  }
}
