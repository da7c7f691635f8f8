/// <reference lib="webworker" />
// Campfire's service worker does two things only: shows a push notification (and sets the app
// badge), and opens the right page when one is clicked. It has no fetch handler and
// keeps no offline cache.
declare const self: ServiceWorkerGlobalScope

// The payload is upstream's (WebPush::Notification): {title, options: {body, icon, data: {path, badge}}}.
interface PushPayload { title?: string; options?: NotificationOptions & { data?: { path?: string; badge?: number } } }

self.addEventListener('push', (event: PushEvent) => {
  const payload = readPayload(event.data)
  // The account's logo is the notification's icon unless the push names one.
  const options: NotificationOptions = { icon: '/account/logo?size=small', ...payload.options }
  const badge = payload.options?.data?.badge || 0
  const nav = self.navigator as Navigator & { setAppBadge?: (n?: number) => Promise<void> }
  event.waitUntil(Promise.all([
    self.registration.showNotification(payload.title ?? 'Campfire', options),
    nav.setAppBadge?.(badge).catch(() => {}) ?? Promise.resolve(),
  ]))
})

// A click opens the message's room: in the window that has focus, or in a new one.
self.addEventListener('notificationclick', (event: NotificationEvent) => {
  event.notification.close()
  const path = (event.notification.data as { path?: string } | null)?.path ?? '/'
  const url = new URL(path, self.location.origin).href
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: 'window' })
    const focused = windows.find((w) => w.focused)
    if (focused) await focused.navigate(url)
    else await self.clients.openWindow(url)
  })())
})

function readPayload(data: PushMessageData | null): PushPayload {
  try {
    return (data?.json() ?? {}) as PushPayload
  } catch {
    return { title: data?.text() }
  }
}
