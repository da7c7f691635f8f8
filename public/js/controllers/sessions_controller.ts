import { Controller } from '@hotwired/stimulus'

const UNSUBSCRIBE_WAIT_MS = 2000

// Logging out: this browser stops receiving pushes first (it unsubscribes, closes the
// notifications it shows, clears the badge) and the form tells the server which subscription to
// forget. Signing out never waits on that for more than a couple of seconds.
export default class SessionsController extends Controller<HTMLFormElement> {
  static targets = ['pushSubscriptionEndpoint']
  declare readonly pushSubscriptionEndpointTarget: HTMLInputElement

  async logout(): Promise<void> {
    try {
      await Promise.race([this.unsubscribeFromPush(), new Promise((resolve) => setTimeout(resolve, UNSUBSCRIBE_WAIT_MS))])
    } catch {
      // Nothing to forget; sign out all the same.
    } finally {
      this.element.requestSubmit()
    }
  }

  private async unsubscribeFromPush(): Promise<void> {
    if ('serviceWorker' in navigator) {
      const registration = await navigator.serviceWorker.getRegistration(window.location.origin)
      if (registration) {
        for (const notification of await registration.getNotifications()) notification.close()
        const subscription = await registration.pushManager?.getSubscription()
        if (subscription) {
          this.pushSubscriptionEndpointTarget.value = subscription.endpoint
          await subscription.unsubscribe()
        }
      }
    }
    if ('clearAppBadge' in navigator) await navigator.clearAppBadge()
  }
}
