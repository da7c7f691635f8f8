import { Controller } from '@hotwired/stimulus'
import { Current } from '../lib/current.ts'

const SYNC_INTERVAL_MS = 30_000
const synchronized = new Map<string, number>()

// Registers the service worker, asks for permission when the bell is clicked, subscribes to
// Web Push and tells the server, then says "ready" so the bell's menu loads.
export default class NotificationsController extends Controller<HTMLElement> {
  static targets = ['bell', 'notAllowedNotice']
  static classes = ['attention']
  static values = { subscriptionsUrl: String }
  declare readonly notAllowedNoticeTarget: HTMLDialogElement
  declare readonly hasNotAllowedNoticeTarget: boolean
  declare readonly bellTargets: HTMLElement[]
  declare readonly attentionClass: string
  declare readonly hasAttentionClass: boolean
  declare readonly subscriptionsUrlValue: string

  async connect(): Promise<void> {
    if (!this.supported) return this.ready()
    const registration = await this.register()
    if (Notification.permission === 'granted' && registration && Current.vapidPublicKey) await this.subscribe(registration)
    if (Notification.permission === 'default') this.showAlert()
    this.ready()
  }

  async attemptToSubscribe(event: Event): Promise<void> {
    if (!this.supported || Notification.permission === 'granted') return
    event.preventDefault()
    if (Notification.permission === 'denied') {
      if (this.hasNotAllowedNoticeTarget) this.notAllowedNoticeTarget.showModal()
      return
    }
    const permission = await Notification.requestPermission()
    if (permission === 'granted') {
      const registration = await this.register()
      if (registration && Current.vapidPublicKey) await this.subscribe(registration)
      this.ready()
    } else if (permission === 'denied' && this.hasNotAllowedNoticeTarget) {
      this.notAllowedNoticeTarget.showModal()
    }
  }

  private get supported(): boolean {
    return 'serviceWorker' in navigator && 'Notification' in window && 'PushManager' in window && window.isSecureContext
  }

  private async register(): Promise<ServiceWorkerRegistration | null> {
    try {
      return await navigator.serviceWorker.register('/service-worker.js', { scope: '/' })
    } catch {
      return null
    }
  }

  private async subscribe(registration: ServiceWorkerRegistration): Promise<void> {
    try {
      const subscription = (await registration.pushManager.getSubscription()) ??
        (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64UrlBytes(Current.vapidPublicKey) }))
      await this.sync(subscription)
    } catch {
      // Push is unavailable here (no push service); the bell still works for the room.
    }
  }

  // Tells the server about the subscription as JSON, {push_subscription: {endpoint, p256dh_key,
  // auth_key}}; it keeps or touches it. Once per subscription every SYNC_INTERVAL_MS is enough,
  // however many pages Turbo visits in between.
  private async sync(subscription: PushSubscription): Promise<void> {
    const { endpoint = '', keys = {} } = subscription.toJSON()
    const body = JSON.stringify({ push_subscription: { endpoint, p256dh_key: keys.p256dh ?? '', auth_key: keys.auth ?? '' } })
    if (Date.now() - (synchronized.get(body) ?? -Infinity) < SYNC_INTERVAL_MS) return
    const response = await fetch(this.subscriptionsUrlValue, {
      method: 'POST',
      body,
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml' },
    })
    if (response.ok) synchronized.set(body, Date.now())
  }

  private showAlert(): void {
    if (!this.hasAttentionClass) return
    for (const bell of this.bellTargets) bell.classList.add(this.attentionClass)
  }

  private ready(): void {
    for (const bell of this.bellTargets) bell.querySelector('.icon--bell-loading')?.setAttribute('hidden', '')
    this.dispatch('ready', { target: window })
  }
}

function base64UrlBytes(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(text.length / 4) * 4, '=')
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))
}
