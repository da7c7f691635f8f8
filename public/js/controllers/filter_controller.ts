import { Controller } from '@hotwired/stimulus'
import { debounce } from '../helpers/timing.ts'

// Filters a list of people as you type, matching their data-value.
export default class FilterController extends Controller<HTMLElement> {
  static targets = ['input', 'list', 'item']
  static classes = ['active', 'selected']
  declare readonly inputTarget: HTMLInputElement
  declare readonly itemTargets: HTMLElement[]
  declare readonly activeClass: string
  declare readonly hasActiveClass: boolean

  filter = debounce(() => {
    const query = this.inputTarget.value.trim().toLowerCase()
    if (this.hasActiveClass) this.element.classList.toggle(this.activeClass, query !== '')
    for (const item of this.itemTargets) item.hidden = query !== '' && !(item.dataset.value ?? item.textContent ?? '').toLowerCase().includes(query)
  }, 300)
}
