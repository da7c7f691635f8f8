import { Controller } from '@hotwired/stimulus'
import { unescapeText } from '../helpers/html.ts'
import { debounce } from '../helpers/timing.ts'
import { Current } from '../lib/current.ts'
import type { SuggestionSelectElement } from '../lib/suggestion_elements.ts'

interface Person { name: string; value: number; avatar_url: string }

const LIST_GRACE_MS = 1_000

// Picking people for a new Ping: type to search (debounced), choose with the arrow keys and
// Enter or a click; each choice becomes a pill and an option of the hidden <select>, and
// Backspace in the empty field removes the last pill. The suggestions are upstream's
// <suggestion-select> of <suggestion-option value="id"> elements.
export default class AutocompleteController extends Controller<HTMLElement> {
  static targets = ['select', 'input', 'results']
  static values = { url: String }
  declare readonly selectTarget: HTMLSelectElement
  declare readonly inputTarget: HTMLInputElement
  declare readonly resultsTarget: HTMLElement
  declare readonly hasResultsTarget: boolean
  declare readonly urlValue: string

  private list: SuggestionSelectElement | null = null
  private results: Person[] = []
  private active = 0

  search = debounce(() => void this.load(), 300)

  // A move (the sidebar reloading around an open picker) takes the element out of the page while
  // Turbo renders the fresh frame, which can take a few animation frames, and puts it back: the
  // results shown stay then. Only a picker still out of the page a moment later loses its list.
  disconnect(): void {
    setTimeout(() => {
      if (this.element.isConnected) return
      this.list?.remove()
      this.list = null
    }, LIST_GRACE_MS)
  }

  didPressKey(event: KeyboardEvent): void {
    if (event.key === 'Backspace' && this.inputTarget.value === '') {
      const last = [...this.selectTarget.options].at(-1)
      if (last) this.removeValue(last.value)
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault()
      this.highlight(this.active + (event.key === 'ArrowDown' ? 1 : -1))
    } else if (event.key === 'Enter' && this.list && this.results.length > 0) {
      event.preventDefault()
      this.choose(this.results[this.active]!)
    } else if (event.key === 'Escape') {
      this.close()
    }
  }

  remove(event: Event): void {
    const value = (event.currentTarget as HTMLElement).dataset.value
    if (value) this.removeValue(value)
  }

  private async load(): Promise<void> {
    const query = this.inputTarget.value.trim()
    if (query === '') return this.close()
    const url = new URL(this.urlValue, location.href)
    url.searchParams.set('query', query)
    const response = await fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' }).catch(() => null)
    if (!response?.ok) return
    const chosen = new Set([...this.selectTarget.options].map((o) => o.value))
    this.results = ((await response.json()) as Person[]).filter((p) => p.value !== Current.userId && !chosen.has(String(p.value)))
    this.render()
  }

  private render(): void {
    this.list ??= this.createList()
    this.list.replaceChildren(...this.results.map((person, index) => {
      const option = document.createElement('suggestion-option')
      option.setAttribute('role', 'option')
      option.setAttribute('value', String(person.value))
      option.className = 'autocomplete__item'
      option.id = `${this.list!.id}_${person.value}`
      const img = document.createElement('img')
      img.src = person.avatar_url
      img.alt = ''
      img.className = 'avatar'
      const name = document.createElement('span')
      name.className = 'autocompletable__name'
      name.textContent = unescapeText(person.name)
      option.append(img, name)
      option.addEventListener('mousedown', (event) => {
        event.preventDefault()
        this.choose(person)
      })
      option.addEventListener('mouseenter', () => this.highlight(index))
      return option
    }))
    this.list.hidden = this.results.length === 0
    this.inputTarget.setAttribute('aria-expanded', String(!this.list.hidden))
    this.highlight(0)
  }

  private createList(): SuggestionSelectElement {
    const list = document.createElement('suggestion-select')
    list.className = 'autocomplete__list border shadow'
    list.id = `${this.inputTarget.id || 'autocomplete'}_suggestions`
    list.setAttribute('role', 'listbox')
    list.setAttribute('aria-label', 'People')
    const container = this.hasResultsTarget ? this.resultsTarget : this.element
    container.append(list)
    this.inputTarget.setAttribute('aria-controls', list.id)
    return list
  }

  private highlight(index: number): void {
    if (!this.list || this.results.length === 0) return
    this.active = (index + this.results.length) % this.results.length
    this.list.selectedIndex = this.active
    const option = this.list.selectedOption
    if (option) {
      this.inputTarget.setAttribute('aria-activedescendant', option.id)
      option.scrollIntoView({ block: 'nearest' })
    }
  }

  private choose(person: Person): void {
    const template = document.getElementById(this.selectTarget.dataset.templateId ?? 'autocompletable-user') as HTMLTemplateElement | null
    const name = unescapeText(person.name)
    const option = new Option(name, String(person.value), true, true)
    this.selectTarget.append(option)
    if (template) {
      const pill = template.content.firstElementChild!.cloneNode(true) as HTMLElement
      pill.dataset.value = String(person.value)
      // The template holds a placeholder, not an <img> without a source: the picture goes in its place.
      const placeholder = pill.querySelector<HTMLElement>('[data-content="avatar"]')!
      const avatar = document.createElement('img')
      avatar.className = placeholder.className
      avatar.src = person.avatar_url
      avatar.alt = ''
      placeholder.replaceWith(avatar)
      pill.querySelector('[data-content="label"]')!.textContent = name
      pill.querySelector('[data-content="screenReaderLabel"]')!.textContent = name
      pill.querySelector<HTMLElement>('button')!.dataset.value = String(person.value)
      this.inputTarget.before(pill)
    }
    this.inputTarget.value = ''
    this.close()
    this.inputTarget.focus()
  }

  private removeValue(value: string): void {
    this.selectTarget.querySelector(`option[value="${CSS.escape(value)}"]`)?.remove()
    this.element.querySelector(`.autocomplete__pill[data-value="${CSS.escape(value)}"]`)?.remove()
    this.inputTarget.focus()
  }

  private close(): void {
    this.results = []
    if (this.list) this.list.hidden = true
    this.inputTarget.setAttribute('aria-expanded', 'false')
    this.inputTarget.removeAttribute('aria-activedescendant')
  }
}
