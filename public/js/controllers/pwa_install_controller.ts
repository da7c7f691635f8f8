import { Controller } from '@hotwired/stimulus'

interface InstallPrompt extends Event {
  prompt(): Promise<void>
}

// "Install now": shown only once the browser says it can install Campfire (its
// beforeinstallprompt, held back until the button is pressed).
export default class PwaInstallController extends Controller<HTMLElement> {
  static classes = ['prompting']
  declare readonly promptingClass: string
  private installPrompt: InstallPrompt | null = null

  connect(): void {
    window.addEventListener('beforeinstallprompt', this.offered)
  }

  disconnect(): void {
    window.removeEventListener('beforeinstallprompt', this.offered)
  }

  async promptInstall(): Promise<void> {
    const prompt = this.installPrompt
    if (!prompt) return
    this.installPrompt = null
    this.element.classList.remove(this.promptingClass)
    await prompt.prompt()
  }

  private offered = (event: Event): void => {
    event.preventDefault()
    this.installPrompt = event as InstallPrompt
    this.element.classList.add(this.promptingClass)
  }
}
