// The part of the web-push package (3.x, which ships no types) that server/lib/web-push-pool.ts uses.
declare module 'web-push' {
  import type { Agent } from 'node:https'

  export interface PushSubscription {
    endpoint: string
    keys: { p256dh: string; auth: string }
  }

  export interface RequestOptions {
    headers?: Record<string, string>
    vapidDetails?: { subject: string; publicKey: string; privateKey: string } | null
    TTL?: number
    urgency?: 'very-low' | 'low' | 'normal' | 'high'
    contentEncoding?: 'aesgcm' | 'aes128gcm'
    topic?: string
    agent?: Agent
    timeout?: number
  }

  export interface SendResult {
    statusCode: number
    body: string
    headers: Record<string, string | string[] | undefined>
  }

  export class WebPushError extends Error {
    statusCode: number
    headers: Record<string, string | string[] | undefined>
    body: string
    endpoint: string
  }

  export function sendNotification(subscription: PushSubscription, payload?: string | Buffer | null, options?: RequestOptions): Promise<SendResult>
  export function getVapidHeaders(
    audience: string, subject: string, publicKey: string, privateKey: string, contentEncoding: 'aesgcm' | 'aes128gcm', expiration?: number,
  ): { Authorization: string; 'Crypto-Key'?: string }
  export function generateVAPIDKeys(): { publicKey: string; privateKey: string }

  const webpush: {
    WebPushError: typeof WebPushError
    sendNotification: typeof sendNotification
    getVapidHeaders: typeof getVapidHeaders
    generateVAPIDKeys: typeof generateVAPIDKeys
  }
  export default webpush
}
