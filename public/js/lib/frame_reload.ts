interface FrameElement extends HTMLElement {
  reload(): unknown
}

interface FrameRenderEvent extends CustomEvent {
  detail: { newFrame: HTMLElement; render: (current: HTMLElement, next: HTMLElement) => void }
}

// Reloads a frame without disturbing an open Ping picker inside it: the picker's own element
// (with its draft and chosen people) is carried into the fresh content in place of the new copy.
export function reloadFrame(frame: FrameElement): void {
  const keep = frame.querySelector<HTMLElement>('turbo-frame#direct_rooms_control:has(.directs--new)')
  if (keep) {
    frame.addEventListener('turbo:before-frame-render', ((event: FrameRenderEvent) => {
      const render = event.detail.render
      event.detail.render = (current, next) => {
        next.querySelector('turbo-frame#direct_rooms_control')?.replaceWith(keep)
        render(current, next)
      }
    }) as EventListener, { once: true })
  }
  // A reload that fails (the server restarting) leaves the old content; the next one will do.
  const reloading = frame.reload()
  if (reloading instanceof Promise) reloading.catch(() => {})
}
