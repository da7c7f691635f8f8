import { Controller } from '@hotwired/stimulus'

// Brings a freshly loaded form (edit a message, add a boost) into view.
export default class ScrollIntoViewController extends Controller<HTMLElement> {
  connect(): void {
    requestAnimationFrame(() => this.element.scrollIntoView({ behavior: 'smooth', block: 'nearest' }))
  }
}
