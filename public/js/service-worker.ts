/// <reference lib="webworker" />
// Campfire's service worker does two things only: shows a push notification (and sets the app
// badge), and focuses or opens the right page when one is clicked. It has no fetch handler and
// keeps no offline cache.
declare const self: ServiceWorkerGlobalScope

interface PushPayload { title?: string; options?: NotificationOptions & { data?: { path?: string }; badge_count?: number } }

self.addEventListener('push', (event: PushEvent) => {
  const payload = (event.data?.json() ?? {}) as PushPayload
  // The account's logo is the notification's icon unless the push names one.
  const options: NotificationOptions & { badge_count?: number } = { icon: '/account/logo?size=small', ...payload.options }
  const nav = self.navigator as Navigator & { setAppBadge?: (n?: number) => Promise<void> }
  event.waitUntil(Promise.all([
    self.registration.showNotification(payload.title ?? 'Campfire', options),
    nav.setAppBadge?.(options.badge_count).catch(() => {}) ?? Promise.resolve(),
  ]))
})

self.addEventListener('notificationclick', (event: NotificationEvent) => {
  event.notification.close()
  const path = (event.notification.data as { path?: string } | null)?.path ?? '/'
  const url = new URL(path, self.location.origin).href
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true })
    const focused = windows.find((w) => w.focused) ?? windows[0]
    if (focused) {
      await focused.navigate(url)
      await focused.focus()
    } else {
      await self.clients.openWindow(url)
    }
  })())
})
