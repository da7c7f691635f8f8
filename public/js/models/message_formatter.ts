import { Current } from '../lib/current.ts'

export interface FormatterClasses {
  firstOfDay: string
  formatted: string
  me: string
  mentioned: string
  threaded: string
}

const THREAD_WINDOW_MS = 5 * 60 * 1000

// Everything about a message that depends on the viewer or its neighbours is worked out here,
// in the browser, so the server's message HTML is the same for everyone: own messages, mentions
// of me, runs by the same person ("threaded") and the first message of each local day.
export class MessageFormatter {
  constructor(private readonly classes: FormatterClasses, private readonly options: { threading: boolean } = { threading: true }) {}

  format(message: HTMLElement): void {
    const me = Current.userId
    message.classList.toggle(this.classes.me, me !== null && Number(message.dataset.userId) === me)
    message.classList.toggle(this.classes.mentioned, this.mentionsMe(message))
    this.formatNeighbourhood(message)
    message.classList.add(this.classes.formatted)
  }

  // A message's threading and day separator depend on the one before it, and the one after
  // depends on it, so both are recomputed when a message arrives or moves.
  formatNeighbourhood(message: HTMLElement): void {
    this.formatAgainstPrevious(message)
    const next = nextMessage(message)
    if (next) this.formatAgainstPrevious(next)
  }

  formatAll(container: Element): void {
    for (const message of container.querySelectorAll<HTMLElement>('.message')) this.format(message)
  }

  private formatAgainstPrevious(message: HTMLElement): void {
    const previous = previousMessage(message)
    const time = Number(message.dataset.messageTimestamp)
    const previousTime = previous ? Number(previous.dataset.messageTimestamp) : NaN
    const firstOfDay = !previous || localDay(time) !== localDay(previousTime)
    message.classList.toggle(this.classes.firstOfDay, firstOfDay)
    const threaded = this.options.threading && !firstOfDay && !!previous &&
      previous.dataset.userId === message.dataset.userId && time - previousTime < THREAD_WINDOW_MS
    message.classList.toggle(this.classes.threaded, threaded)
  }

  private mentionsMe(message: HTMLElement): boolean {
    const me = Current.userId
    if (me === null) return false
    return message.querySelector(`.mention[data-user-id="${me}"]`) !== null
  }
}

function isMessage(node: Element | null): node is HTMLElement {
  return !!node && node.classList.contains('message')
}

// A message may sit alone in a slot that takes no box of its own (an inbox entry, which carries
// the viewer's read state): its neighbours are the slot's.
function slotOf(message: Element): Element {
  const parent = message.parentElement
  return parent?.hasAttribute('data-message-slot') ? parent : message
}

function messageAt(node: Element): HTMLElement | null {
  if (isMessage(node)) return node
  return node.hasAttribute('data-message-slot') ? node.querySelector<HTMLElement>(':scope > .message') : null
}

function previousMessage(message: Element): HTMLElement | null {
  let node = slotOf(message).previousElementSibling
  while (node && !messageAt(node)) node = node.previousElementSibling
  return node ? messageAt(node) : null
}

function nextMessage(message: Element): HTMLElement | null {
  let node = slotOf(message).nextElementSibling
  while (node && !messageAt(node)) node = node.nextElementSibling
  return node ? messageAt(node) : null
}

function localDay(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toDateString() : ''
}
