import { Controller } from '@hotwired/stimulus'

interface StreamRenderEvent extends CustomEvent {
  detail: { newStream: Element; render: (stream: Element) => Promise<void> }
}

// A stream marked maintain_scroll (a boost, an edit above) must not move what the reader sees.
export default class MaintainScrollController extends Controller<HTMLElement> {
  beforeStreamRender(event: StreamRenderEvent): void {
    if (!event.detail.newStream.hasAttribute('maintain_scroll')) return
    const render = event.detail.render
    event.detail.render = async (stream: Element) => {
      const fromBottom = this.element.scrollHeight - this.element.scrollTop
      await render(stream)
      this.element.scrollTop = this.element.scrollHeight - fromBottom
    }
  }
}
