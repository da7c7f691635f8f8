interface FrameElement extends HTMLElement {
  reload(): unknown
  loaded?: Promise<void>
}

interface FrameRenderEvent extends CustomEvent {
  detail: { newFrame: HTMLElement; resume: () => void; render: (current: HTMLElement, next: HTMLElement) => void }
}

// The Ping picker once someone has opened it, or started to (a click on "New Ping" gives the
// frame its src before the picker arrives).
const PICKER = 'turbo-frame#direct_rooms_control:is([src], :has(.directs--new))'
// How long fresh content waits for a picker that is still loading before it moves it anyway.
const PICKER_WAIT_MS = 5_000

// Reloads a frame without disturbing a Ping picker inside it: the picker's own element (with its
// draft and chosen people) is carried into the fresh content in place of the new copy. Whether
// there is a picker to keep is decided when the fresh content arrives, so a picker opened while
// the reload was in flight is kept too. A picker still loading is waited for first: moved
// mid-load, Turbo would cancel its load and start it again.
export function reloadFrame(frame: FrameElement): void {
  let starting = true
  const stop = (): void => {
    frame.removeEventListener('turbo:before-frame-render', keepPicker)
    frame.removeEventListener('turbo:before-fetch-request', supersede)
  }
  const keepPicker = ((event: FrameRenderEvent) => {
    if (event.target !== frame) return
    stop()
    const picker = frame.querySelector<FrameElement>(PICKER)
    if (!picker) return
    const render = event.detail.render
    event.detail.render = (current, next) => {
      // Taking the picker out of the page for the swap blurs it: whoever is typing in it keeps
      // their caret.
      const restore = keepFocus(picker)
      next.querySelector('turbo-frame#direct_rooms_control')?.replaceWith(picker)
      const rendered: unknown = render(current, next)
      if (rendered instanceof Promise) void rendered.finally(restore)
      else restore()
    }
    if (picker.querySelector('.directs--new')) return
    event.preventDefault()
    let timer: ReturnType<typeof setTimeout> | undefined
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, PICKER_WAIT_MS)))
    void Promise.race([Promise.resolve(picker.loaded).catch(() => {}), waited]).then(() => {
      clearTimeout(timer)
      event.detail.resume()
    })
  }) as EventListener
  // Another navigation of the frame (the picker's own Cancel) replaces this reload; its content
  // must not be touched.
  const supersede = (event: Event): void => {
    if (event.target === frame && !starting) stop()
  }
  frame.addEventListener('turbo:before-frame-render', keepPicker)
  frame.addEventListener('turbo:before-fetch-request', supersede)
  // The reload's own request announces itself synchronously, inside reload().
  const reloading = frame.reload()
  starting = false
  // A reload that fails (the server restarting) leaves the old content; the next one will do.
  if (reloading instanceof Promise) reloading.catch(() => {}).finally(stop)
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
