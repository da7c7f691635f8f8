import { Controller } from '@hotwired/stimulus'
import { getCookie, setCookie } from '../lib/cookie.ts'
import { Current } from '../lib/current.ts'
import { nextTick } from '../helpers/timing.ts'

// Tells the server about a subscription at most once per SYNC_TTL_MS, however many pages Turbo
// visits in between (one sync in flight per subscription).
const SYNC_TTL_MS = 30_000
const syncedAt = new Map<string, number>()
const syncing = new Map<string, Promise<boolean>>()

// The room's bell before push is on in this browser (views/rooms/involvements/_bell.eta). Where
// this browser already delivers pushes here, it says "ready" at once and the involvement frame
// replaces the bell. Otherwise the bell shows its alert, pulsing until first used (a first-run
// cookie, one for the browser tab and one for the installed app). Pressing it asks for
// permission, subscribes with the VAPID key, posts the subscription, then says "ready"; a
// refusal, or a browser without Web Push, opens the "Notifications aren't allowed" dialog.
export default class NotificationsController extends Controller<HTMLElement> {
  static targets = ['bell', 'status', 'notAllowedNotice', 'details']
  static classes = ['attention']
  static values = { subscriptionsUrl: String }
  declare readonly bellTarget: HTMLButtonElement
  declare readonly hasBellTarget: boolean
  declare readonly statusTarget: HTMLElement
  declare readonly hasStatusTarget: boolean
  declare readonly notAllowedNoticeTarget: HTMLDialogElement
  declare readonly detailsTargets: HTMLDetailsElement[]
  declare readonly attentionClass: string
  declare readonly subscriptionsUrlValue: string
  private enrolling = false
  private refocus = false

  async connect(): Promise<void> {
    if (document.documentElement.hasAttribute('data-turbo-preview') || !this.hasBellTarget) return
    if (!getCookie(this.firstRunCookie)) this.bellTarget.classList.add(this.attentionClass)
    if (await this.alreadyDelivering()) {
      await nextTick()
      this.ready()
    } else {
      this.showAlert()
    }
  }

  async attemptToSubscribe(): Promise<void> {
    if (this.enrolling) return
    this.enrolling = true
    this.setBusy(true)
    let failed = false
    try {
      if (this.pushAvailable) failed = !(await this.askAndSubscribe())
      else this.revealNotAllowedNotice()
    } catch {
      failed = true
    } finally {
      this.enrolling = false
      this.setBusy(false)
      if (failed) this.announce('Notifications could not be turned on. Try again.')
      this.endFirstRun()
    }
  }

  // A frame inside finished loading: the dialog's help (open its only visible section), or the
  // involvement button that took the bell's place (give it the focus the bell had).
  frameLoaded(event: Event): void {
    const frame = event.target as HTMLElement
    if (frame.id === 'notification_help') this.openSingleSection()
    else if (this.refocus) {
      this.refocus = false
      frame.querySelector<HTMLElement>('button')?.focus()
    }
  }

  // Answers false when subscribing failed; a refusal is not a failure (the dialog says why).
  private async askAndSubscribe(): Promise<boolean> {
    const registration = (await this.registration()) ?? (await navigator.serviceWorker.register('/service-worker.js', { scope: '/' }))
    const permission = Notification.permission === 'default' ? await Notification.requestPermission() : Notification.permission
    if (permission !== 'granted') {
      this.revealNotAllowedNotice()
      return true
    }
    const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64UrlBytes(Current.vapidPublicKey) })
    if (!(await this.sync(subscription, true))) return false
    this.announce('Notifications are on.')
    this.refocus = this.element.contains(document.activeElement) || document.activeElement === document.body
    this.ready()
    return true
  }

  private async alreadyDelivering(): Promise<boolean> {
    try {
      if (!this.pushAvailable || Notification.permission !== 'granted') return false
      const subscription = await (await this.registration())?.pushManager.getSubscription()
      return subscription ? await this.sync(subscription) : false
    } catch {
      return false
    }
  }

  private get pushAvailable(): boolean {
    return 'serviceWorker' in navigator && 'Notification' in window && 'PushManager' in window && Current.vapidPublicKey !== ''
  }

  private registration(): Promise<ServiceWorkerRegistration | undefined> {
    return navigator.serviceWorker.getRegistration('/')
  }

  // POSTs {push_subscription: {endpoint, p256dh_key, auth_key}} as JSON; the server keeps it
  // or touches the identical one it has.
  private sync(subscription: PushSubscription, force = false): Promise<boolean> {
    const { endpoint = '', keys = {} } = subscription.toJSON()
    const body = JSON.stringify({ push_subscription: { endpoint, p256dh_key: keys.p256dh ?? '', auth_key: keys.auth ?? '' } })
    const key = `${Current.userId ?? ''} ${body}`
    const pending = syncing.get(key)
    if (pending) return pending
    if (!force && Date.now() - (syncedAt.get(key) ?? -Infinity) < SYNC_TTL_MS) return Promise.resolve(true)
    const request = this.post(body).then((ok) => {
      if (ok) syncedAt.set(key, Date.now())
      return ok
    }).finally(() => syncing.delete(key))
    syncing.set(key, request)
    return request
  }

  private async post(body: string): Promise<boolean> {
    try {
      const response = await fetch(this.subscriptionsUrlValue, {
        method: 'POST',
        body,
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', Accept: 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml' },
      })
      return response.ok
    } catch {
      return false
    }
  }

  private revealNotAllowedNotice(): void {
    this.announce('Notifications aren’t allowed in this browser.')
    if (!this.notAllowedNoticeTarget.open) this.notAllowedNoticeTarget.showModal()
    this.openSingleSection()
  }

  private openSingleSection(): void {
    const visible = this.detailsTargets.filter((details) => details.getClientRects().length > 0)
    if (visible.length === 1) this.detailsTargets.forEach((details) => (details.open = details === visible[0]))
  }

  private showAlert(): void {
    this.bellTarget.querySelector('.icon--bell-loading')?.setAttribute('hidden', '')
    this.bellTarget.querySelector('.icon--bell-alert')?.removeAttribute('hidden')
  }

  private setBusy(busy: boolean): void {
    this.bellTarget.toggleAttribute('aria-busy', busy)
    this.bellTarget.toggleAttribute('aria-disabled', busy)
    if (busy) this.announce('Turning on notifications…')
  }

  private announce(text: string): void {
    if (this.hasStatusTarget) this.statusTarget.textContent = text
  }

  private endFirstRun(): void {
    this.bellTarget.classList.remove(this.attentionClass)
    setCookie(this.firstRunCookie, 'true')
  }

  private get firstRunCookie(): string {
    return window.matchMedia('(display-mode: standalone)').matches ? 'notifications-pwa-first-run-seen' : 'notifications-first-run-seen'
  }

  private ready(): void {
    this.bellTarget.querySelector('.icon--bell-loading')?.setAttribute('hidden', '')
    this.dispatch('ready', { target: window })
  }
}

function base64UrlBytes(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(text.length / 4) * 4, '=')
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))
}
