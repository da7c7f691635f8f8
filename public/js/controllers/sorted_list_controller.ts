import { Controller } from '@hotwired/stimulus'

// Keeps the sidebar's lists in order: Pings newest first (by a number), rooms by name.
export default class SortedListController extends Controller<HTMLElement> {
  static targets = ['item']
  declare readonly itemTargets: HTMLElement[]

  itemTargetConnected(): void {
    this.sort()
  }

  // A Ping moves up to its newest message's time (`at`, Unix seconds, from the unread notice): a
  // room marked unread at an older message stays where it is.
  updateItem(event: CustomEvent<{ targetId: string; at?: number }>): void {
    const item = this.itemTargets.find((i) => i.id === event.detail.targetId)
    if (!item || item.dataset.sortedListNumber === undefined) return
    const at = event.detail.at === undefined ? Date.now() : Math.round(event.detail.at * 1000)
    if (at <= Number(item.dataset.sortedListNumber)) return
    item.dataset.sortedListNumber = String(at)
    this.sort()
  }

  private sort(): void {
    const items = this.itemTargets
    const sorted = [...items].sort((a, b) => {
      if (a.dataset.sortedListNumber !== undefined) return Number(b.dataset.sortedListNumber) - Number(a.dataset.sortedListNumber)
      return (a.dataset.sortedListName ?? '').localeCompare(b.dataset.sortedListName ?? '', undefined, { sensitivity: 'base' })
    })
    if (sorted.every((item, i) => item === items[i])) return
    for (const item of sorted) this.element.append(item)
  }
}
