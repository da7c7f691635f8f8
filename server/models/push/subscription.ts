import type { Connection } from '../database.ts'

// Push::Subscription: a browser's Web Push endpoint for one person.
export function pushSubscriptions(db: Connection) {
  const destroyByEndpoint = db.prepare('DELETE FROM push_subscriptions WHERE user_id = ? AND endpoint = ?')

  return {
    // Signing out from a browser forgets the subscription it had (the browser has already
    // unsubscribed itself), so nothing is pushed to a signed-out device.
    destroyByEndpoint: (userId: number, endpoint: string): number => destroyByEndpoint.run(userId, endpoint).changes,
  }
}
