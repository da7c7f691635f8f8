import { Controller } from '@hotwired/stimulus'
import { Current } from '../lib/current.ts'

// Only the person who boosted can remove a boost: clicking it reveals the delete button.
export default class BoostDeleteController extends Controller<HTMLElement> {
  static targets = ['button', 'content']
  static classes = ['reveal', 'perform']
  static values = { boosterId: Number }
  declare readonly boosterIdValue: number
  declare readonly revealClass: string
  declare readonly performClass: string

  reveal(): void {
    if (this.boosterIdValue === Current.userId) this.element.classList.toggle(this.revealClass)
  }

  perform(): void {
    this.element.classList.add(this.performClass)
  }
}
