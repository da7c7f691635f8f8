import { Controller } from '@hotwired/stimulus'
import { composerEditor } from '../lib/focus.ts'

// "Skip to the message box": past the nav and every message's buttons, straight into the
// composer, ready to type (an anchor alone would only move where the next Tab starts).
// "Skip to the room list": onto this room's link in the sidebar (or the first room's), opening
// the sidebar first where it is off-canvas (phones), so the next Tab moves through the rooms.
export default class SkipLinkController extends Controller {
  focusComposer(event: Event): void {
    const editor = composerEditor()
    if (!editor) return
    event.preventDefault()
    editor.focus()
  }

  focusRooms(event: Event): void {
    const sidebar = document.getElementById('sidebar')
    const links = [...(sidebar?.querySelectorAll<HTMLAnchorElement>('a.room, a.direct:not(.direct__new)') ?? [])]
    const room = links.find((link) => link.getAttribute('aria-current') === 'page') ?? links[0]
    if (!sidebar || !room) return
    event.preventDefault()
    if (room.getClientRects().length === 0 || getComputedStyle(sidebar).transform !== 'none') sidebar.classList.add('open')
    room.focus()
  }
}
