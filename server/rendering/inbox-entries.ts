// An inbox entry (views/users/mentions/index.eta) is the message's shared fragment, as the room
// shows it, inside the person's own wrapper: its id lets a live entry replace one already shown,
// and a read entry is dimmed. The wrapper takes no box of its own (`contents`), and the browser's
// formatter looks past it for the message's neighbours (`data-message-slot`).
export const INBOX_ENTRIES = 'inbox_entries'

export function inboxEntry(messageId: number, fragmentHtml: string, unread: boolean): string {
  const state = unread ? 'inbox__entry--unread' : 'inbox__entry--read'
  return `<div id="inbox_entry_${messageId}" class="inbox__entry ${state}" data-message-slot contents>${fragmentHtml}</div>`
}

// The older entries, loaded when they scroll into view: the page before `messageId` answers with
// its entries inside a frame of the same id. Without scripts it is a link to that page.
export function olderInboxEntries(messageId: number, path: string): string {
  return `<turbo-frame id="inbox_older_${messageId}" src="${path}" loading="lazy" target="_top"><a class="inbox__older btn" href="${path}">Older mentions</a></turbo-frame>`
}
