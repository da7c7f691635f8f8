import https from 'node:https'
import type { ClientRequest, IncomingMessage } from 'node:http'
import type { LookupFunction } from 'node:net'
import { createSecureContext, rootCertificates } from 'node:tls'
import { resolveAllowed } from './private-network-guard.ts'

// The connections Web Push is sent over (server/lib/web-push-pool.ts): kept alive between pushes
// to a push service, each connected to an address the private-network guard allowed, looked up
// as the socket connects so that exactly the vetted address is used (DNS rebinding cannot move it).
const MAX_ANSWER_BYTES = 64 * 1024
const IDLE_SOCKET_MS = 30_000

export interface PushAgentOptions {
  maxSockets: number
  deadlineMs: number
  isAllowedAddress: (address: string) => boolean
  // Certificate authorities to trust besides Node's own.
  ca?: string
}

// Every request through it has one deadline, from waiting for a socket to the answer's last
// byte, and its answer is cut off past MAX_ANSWER_BYTES (web-push would read all of it).
export class PushAgent extends https.Agent {
  private readonly deadlineMs: number

  constructor(options: PushAgentOptions) {
    super({
      keepAlive: true,
      maxSockets: options.maxSockets,
      // Every socket in use may stay open for the next push to its service.
      maxFreeSockets: options.maxSockets,
      timeout: IDLE_SOCKET_MS,
      lookup: guardedLookup(options.isAllowedAddress),
      // Made once: a context per connection would parse every root certificate each time.
      ...(options.ca ? { secureContext: createSecureContext({ ca: [...rootCertificates, options.ca] }) } : {}),
    })
    this.deadlineMs = options.deadlineMs
  }

  // Node's Agent hands every request it serves to addRequest.
  addRequest(request: ClientRequest, options: unknown): void {
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${this.deadlineMs} ms`)), this.deadlineMs)
    timer.unref()
    request.once('close', () => clearTimeout(timer))
    request.once('response', (response: IncomingMessage) => {
      let bytes = 0
      response.on('error', () => {})
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length
        if (bytes > MAX_ANSWER_BYTES) request.destroy(new Error('answer too long'))
      })
    })
    const base = https.Agent.prototype as unknown as { addRequest(this: https.Agent, request: ClientRequest, options: unknown): void }
    base.addRequest.call(this, request, options)
  }
}

// Resolves a host through the private-network guard as the socket connects, so it connects to
// exactly the address that was vetted.
function guardedLookup(isAllowed: (address: string) => boolean): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolveAllowed(hostname, { isAllowed }).then(
      (vetted) => (options?.all ? callback(null, [vetted]) : callback(null, vetted.address, vetted.family)),
      (error: unknown) => callback(error),
    )
  }) as unknown as LookupFunction
}
