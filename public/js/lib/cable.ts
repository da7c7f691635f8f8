import { createConsumer, type Consumer, type Mixin, type Subscription } from '@rails/actioncable'

// One Action Cable connection per page, to the URL the layout names.
let consumer: Consumer | null = null

export function cable(): Consumer {
  const url = document.head.querySelector<HTMLMetaElement>('meta[name="action-cable-url"]')?.content ?? '/cable'
  consumer ??= createConsumer(url)
  return consumer
}

export function subscribe(params: Record<string, unknown>, mixin: Mixin): Subscription {
  return cable().subscriptions.create(params, mixin)
}
