import { PASSWORD, rooms, users } from '../../fixtures.ts'

// What bench:push and bench:email do as David on the fixture cast: sign in, then post into HQ.

export async function signIn(base: string): Promise<string> {
  const response = await fetch(`${base}/session`, {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
    body: new URLSearchParams({ email_address: users.david.email, password: PASSWORD }),
  })
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('session_token='))
  if (!cookie) throw new Error(`sign-in failed: ${response.status}`)
  return cookie.split(';')[0]!
}

// Posts, and answers the server's own time for it.
export async function post(base: string, cookie: string, text: string): Promise<number> {
  const response = await fetch(`${base}/rooms/${rooms.hq.id}/messages`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', accept: 'text/vnd.turbo-stream.html' },
    body: new URLSearchParams({ 'message[body]': text }),
  })
  await response.text()
  if (response.status !== 200) throw new Error(`post answered ${response.status}`)
  return Number(/total;dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1] ?? NaN)
}
