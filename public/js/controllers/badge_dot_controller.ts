import { Controller } from '@hotwired/stimulus'

// Shows a dot on the menu button (and the app badge, where supported) while any room is unread.
export default class BadgeDotController extends Controller<HTMLElement> {
  static targets = ['unread']
  static classes = ['unread']
  declare readonly unreadTargets: HTMLElement[]
  declare readonly unreadClass: string

  connect(): void {
    this.update()
  }

  update(): void {
    const count = this.unreadTargets.filter((t) => t.classList.contains(this.unreadClass)).length
    document.body.classList.toggle('has-unread', count > 0)
    const nav = navigator as Navigator & { setAppBadge?: (n: number) => Promise<void>; clearAppBadge?: () => Promise<void> }
    if (count > 0) nav.setAppBadge?.(count).catch(() => {})
    else nav.clearAppBadge?.().catch(() => {})
  }
}
