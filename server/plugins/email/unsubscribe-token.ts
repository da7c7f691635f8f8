// The one-click unsubscribe link every email carries: the person's signed id (signedId with
// this purpose, no expiry), valid without a session. It only ever turns the emails off.
export const EMAIL_UNSUBSCRIBE_PURPOSE = 'email_unsubscribe'

export function unsubscribePath(token: string): string {
  return `/email/unsubscribe/${encodeURIComponent(token)}`
}
