import http from 'node:http'
import type { AddressInfo } from 'node:net'

// A real bot on loopback: a node:http server that records every request (method, headers,
// body parsed as JSON when it is JSON) and answers with whatever the test's handler does.
export interface ReceivedRequest {
  method: string
  url: string
  headers: http.IncomingHttpHeaders
  body: string
  json: unknown
}

export type Answer = (request: ReceivedRequest, response: http.ServerResponse) => void

export interface WebhookReceiver {
  url: string
  port: number
  requests: ReceivedRequest[]
  answer: Answer
  // Resolves when `count` requests have arrived (counting those already here).
  received(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>
  close(): Promise<void>
}

export async function startReceiver(scope: { after: (fn: () => unknown) => void }, answer: Answer = (_r, res) => res.writeHead(204).end(), port = 0): Promise<WebhookReceiver> {
  const waiters: (() => void)[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      let json: unknown = null
      try {
        json = JSON.parse(body)
      } catch {}
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json }
      receiver.requests.push(request)
      for (const wake of [...waiters]) wake()
      receiver.answer(request, res)
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const listening = (server.address() as AddressInfo).port
  const close = () => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${listening}/bot`,
    port: listening,
    requests: [],
    answer,
    received(count, timeoutMs = 5000) {
      if (receiver.requests.length >= count) return Promise.resolve(receiver.requests.slice(0, count))
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the receiver got ${receiver.requests.length} of ${count} requests`)), timeoutMs)
        const check = () => {
          if (receiver.requests.length < count) return
          clearTimeout(timer)
          waiters.splice(waiters.indexOf(check), 1)
          resolve(receiver.requests.slice(0, count))
        }
        waiters.push(check)
      })
    },
    close,
  }
  scope.after(close)
  return receiver
}

// A free loopback port with nothing listening on it (the harness uses port 9, discard).
export async function closedPort(): Promise<number> {
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
