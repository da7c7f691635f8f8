// Upstream's two custom elements for a list of suggestions: <suggestion-select> is the listbox,
// <suggestion-option value="…"> one choice in it; the chosen one carries the `selected` attribute
// (and aria-selected). The New Ping picker renders its people with them, so anything that looks
// for upstream's elements (a person, a test, the harness) finds them.

let sequence = 0

export class SuggestionOptionElement extends HTMLElement {
  connectedCallback(): void {
    if (!this.id) this.id = `suggestion-option-${++sequence}`
    if (!this.hasAttribute('role')) this.setAttribute('role', 'option')
    this.setAttribute('aria-selected', String(this.selected))
  }

  get selectElement(): SuggestionSelectElement | null {
    return this.closest('suggestion-select')
  }

  get selected(): boolean {
    return this.hasAttribute('selected')
  }

  set selected(value: boolean) {
    this.toggleAttribute('selected', value)
    this.setAttribute('aria-selected', String(value))
  }

  get value(): string {
    return this.getAttribute('value') ?? ''
  }
}

export class SuggestionSelectElement extends HTMLElement {
  connectedCallback(): void {
    if (!this.hasAttribute('role')) this.setAttribute('role', 'listbox')
  }

  get optionElements(): SuggestionOptionElement[] {
    return [...this.querySelectorAll<SuggestionOptionElement>('suggestion-option')]
  }

  get selectedIndex(): number {
    return this.optionElements.findIndex((option) => option.selected)
  }

  // Clamped to the options there are; -1 clears the choice.
  set selectedIndex(value: number) {
    const options = this.optionElements
    const index = value < 0 ? -1 : Math.min(value, options.length - 1)
    options.forEach((option, i) => (option.selected = i === index))
  }

  get selectedOption(): SuggestionOptionElement | undefined {
    return this.optionElements[this.selectedIndex]
  }

  get value(): string | undefined {
    return this.selectedOption?.value
  }
}

export function defineSuggestionElements(): void {
  if (!customElements.get('suggestion-select')) customElements.define('suggestion-select', SuggestionSelectElement)
  if (!customElements.get('suggestion-option')) customElements.define('suggestion-option', SuggestionOptionElement)
}

declare global {
  interface HTMLElementTagNameMap {
    'suggestion-select': SuggestionSelectElement
    'suggestion-option': SuggestionOptionElement
  }
}
