// Where keyboard focus goes when the element that had it leaves the page (an edit saved, a menu
// closed): to the room's composer, where the next keystroke most likely belongs.

export function composerEditor(): LexxyEditorElement | null {
  return document.querySelector<LexxyEditorElement>('#composer lexxy-editor')
}

// Nothing holds focus: the page itself has it, or the element that had it is gone.
export function focusLost(): boolean {
  const active = document.activeElement
  return !active || active === document.body || !active.isConnected
}

// Someone is typing in another field (a search box, the New Ping input…): leave them there.
export function typingElsewhere(): boolean {
  const active = document.activeElement as HTMLElement | null
  if (!active || !active.isConnected || active.closest('#composer')) return false
  return active.isContentEditable || active.matches('input:not([type="button"], [type="submit"], [type="checkbox"], [type="radio"], [type="file"]), textarea, select')
}

// On a phone, focusing the composer raises the on-screen keyboard over the room, so only a
// device with a fine pointer (a mouse or trackpad) gets the composer focused unasked.
export function finePointer(): boolean {
  return window.matchMedia('(pointer: fine)').matches
}

// After the current change has been drawn: the composer, if focus was lost on the way.
export function returnFocusToComposer(): void {
  requestAnimationFrame(() => {
    if (focusLost()) composerEditor()?.focus()
  })
}
