interface FrameElement extends HTMLElement {
  reload(): unknown
}

interface FrameRenderEvent extends CustomEvent {
  detail: { newFrame: HTMLElement; resume: () => void; render: (current: HTMLElement, next: HTMLElement) => unknown }
}

// The Ping picker once someone has opened it, or started to (a click on "New Ping" gives the
// frame its src before the picker arrives).
const PICKER = 'turbo-frame#direct_rooms_control:is([src], :has(.directs--new))'
// How long fresh content waits for a picker that is still loading before it moves it anyway.
const PICKER_WAIT_MS = 5_000

// Reloads a frame without disturbing a Ping picker inside it: the picker's own element (with its
// draft and chosen people) is carried into the fresh content in place of the new copy.
// - Whether there is a picker to keep is decided at the moment the fresh content goes in, not
//   when it arrives: Turbo waits a frame between the two, and a click on "New Ping" in that frame
//   opens a picker that must be kept too.
// - This watch lasts until the reload renders, fails, or is replaced by another navigation of the
//   frame (the picker's own Cancel). It does not end with the promise reload() returns: Turbo
//   resolves that one early when the reload starts inside the previous load's turbo:frame-load.
// - A picker still loading when the content arrives is waited for first (its own turbo:frame-load):
//   moved mid-load, Turbo cancels its load and starts it again. It still opens, one request later,
//   which is what happens to a picker opened in the last frame before the swap.
export function reloadFrame(frame: FrameElement): void {
  let starting = true
  const events = ['turbo:before-frame-render', 'turbo:before-fetch-request', 'turbo:fetch-request-error', 'turbo:frame-missing'] as const
  const stop = (): void => {
    for (const type of events) frame.removeEventListener(type, watch)
  }
  const watch = (event: Event): void => {
    if (event.target !== frame) return
    if (event.type === 'turbo:before-frame-render') keepPicker(frame, event as FrameRenderEvent)
    // Another navigation of the frame replaces this reload: its content must not be touched. The
    // reload's own request announces itself synchronously, inside reload().
    if (event.type === 'turbo:before-fetch-request' && starting) return
    stop()
  }
  for (const type of events) frame.addEventListener(type, watch)
  frame.reload()
  starting = false
}

function keepPicker(frame: HTMLElement, event: FrameRenderEvent): void {
  const render = event.detail.render
  event.detail.render = (current, next) => {
    const picker = frame.querySelector<HTMLElement>(PICKER)
    if (!picker) return render(current, next)
    markLoaded(picker)
    // Taking the picker out of the page for the swap blurs it: whoever is typing in it keeps
    // their caret.
    const restore = keepFocus(picker)
    next.querySelector('turbo-frame#direct_rooms_control')?.replaceWith(picker)
    const rendered: unknown = render(current, next)
    if (rendered instanceof Promise) void rendered.finally(restore)
    else restore()
    return rendered
  }
  const loading = frame.querySelector<HTMLElement>(PICKER)
  if (!loading || loading.querySelector('.directs--new')) return
  event.preventDefault()
  void pickerSettled(loading).then(() => event.detail.resume())
}

// A picker whose answer Turbo has read, but whose load it has not finished (it puts the content in
// a repaint after reading it, and marks the frame `complete` two repaints later: on a busy machine,
// seconds), would load again once moved: Turbo starts the load of any frame that comes back into
// the page without `complete`. The first answer still goes in, then the second copy replaces what
// is being typed and who has been chosen (a "Start Ping" then submits an empty form and goes
// nowhere). Such a picker is marked complete before the move; Turbo's own render finishes it.
// One whose answer has not arrived is moved as it is: the move cancels its request, and Turbo
// asks again.
function markLoaded(picker: HTMLElement): void {
  if (picker.hasAttribute('src') && !picker.hasAttribute('complete') && picker.hasAttribute(ANSWERED)) picker.setAttribute('complete', '')
}

// Set on the picker's frame from the moment Turbo starts rendering its answer until it asks again.
const ANSWERED = 'data-picker-answered'
document.addEventListener('turbo:before-frame-render', (event) => {
  if (event.target instanceof HTMLElement && event.target.id === 'direct_rooms_control') event.target.setAttribute(ANSWERED, '')
})
document.addEventListener('turbo:before-fetch-request', (event) => {
  if (event.target instanceof HTMLElement && event.target.id === 'direct_rooms_control') event.target.removeAttribute(ANSWERED)
})

// The picker's load has rendered, failed, or taken PICKER_WAIT_MS.
function pickerSettled(picker: HTMLElement): Promise<void> {
  const events = ['turbo:frame-load', 'turbo:fetch-request-error', 'turbo:frame-missing']
  return new Promise((resolve) => {
    const done = (event?: Event): void => {
      if (event && event.target !== picker) return
      clearTimeout(timer)
      for (const type of events) picker.removeEventListener(type, done)
      resolve()
    }
    const timer = setTimeout(done, PICKER_WAIT_MS)
    for (const type of events) picker.addEventListener(type, done)
  })
}

// Remembers the focused element inside `within` (and an input's selection), to put back later.
function keepFocus(within: HTMLElement): () => void {
  const focused = document.activeElement
  if (!(focused instanceof HTMLElement) || !within.contains(focused)) return () => {}
  const input = focused instanceof HTMLInputElement ? focused : null
  const start = input?.selectionStart ?? null
  const end = input?.selectionEnd ?? null
  return () => {
    if (!focused.isConnected || document.activeElement === focused) return
    focused.focus({ preventScroll: true })
    if (input && start !== null && end !== null) input.setSelectionRange(start, end)
  }
}
