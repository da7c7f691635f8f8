import { Controller } from '@hotwired/stimulus'

const TIME = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' })
const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'long' })
const DATETIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'long', timeStyle: 'short' })

// Shows every <time datetime> target in the reader's own time zone and language.
export default class LocalTimeController extends Controller {
  static targets = ['time', 'date', 'datetime']

  timeTargetConnected(target: HTMLTimeElement): void {
    this.render(target, TIME)
  }

  dateTargetConnected(target: HTMLTimeElement): void {
    this.render(target, DATE)
  }

  datetimeTargetConnected(target: HTMLTimeElement): void {
    this.render(target, DATETIME)
  }

  private render(target: HTMLTimeElement, format: Intl.DateTimeFormat): void {
    const date = new Date(target.dateTime)
    if (Number.isNaN(date.getTime())) return
    target.textContent = format.format(date)
    target.title = DATETIME.format(date)
  }
}
