import { Controller } from '@hotwired/stimulus'

interface InstallPrompt extends Event {
  prompt(): Promise<void>
}

// "Install now": shown (the prompting class) only once the browser says it can install Campfire,
// by its beforeinstallprompt, which is held back until the button is pressed. Nothing is listened
// for where web apps cannot be installed (no service workers) or in the installed app itself.
export default class PwaInstallController extends Controller<HTMLElement> {
  static classes = ['prompting']
  declare readonly promptingClass: string
  private installPrompt: InstallPrompt | null = null

  connect(): void {
    if (!('serviceWorker' in navigator) || this.isInstalledApp) return
    window.addEventListener('beforeinstallprompt', this.offered)
    window.addEventListener('appinstalled', this.installed)
  }

  disconnect(): void {
    window.removeEventListener('beforeinstallprompt', this.offered)
    window.removeEventListener('appinstalled', this.installed)
  }

  async promptInstall(): Promise<void> {
    const prompt = this.installPrompt
    if (!prompt) return
    // A prompt can be shown once; the browser offers a new one if it is dismissed.
    this.installPrompt = null
    this.element.classList.remove(this.promptingClass)
    await prompt.prompt()
  }

  private offered = (event: Event): void => {
    event.preventDefault()
    this.installPrompt = event as InstallPrompt
    this.element.classList.add(this.promptingClass)
  }

  private installed = (): void => {
    this.installPrompt = null
    this.element.classList.remove(this.promptingClass)
  }

  private get isInstalledApp(): boolean {
    return window.matchMedia('(display-mode: standalone)').matches || (navigator as Navigator & { standalone?: boolean }).standalone === true
  }
}
