import { Controller } from '@hotwired/stimulus'

// On touch devices, focuses a throwaway input so the keyboard is already up when the form the
// link loads arrives.
export default class SoftKeyboardController extends Controller<HTMLElement> {
  open(): void {
    if (!matchMedia('(pointer: coarse)').matches) return
    const input = document.createElement('input')
    input.setAttribute('aria-hidden', 'true')
    input.className = 'soft-keyboard-opener'
    document.body.append(input)
    input.focus()
    setTimeout(() => input.remove(), 1000)
  }
}
