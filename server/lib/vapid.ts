import { createECDH } from 'node:crypto'

const URL_SAFE_BASE64 = /^[A-Za-z0-9_-]+$/

// Returns why the pair is unusable, or null. Upstream issue #27: a key that is not URL-safe
// base64 breaks the browser's subscription silently, so we refuse it at boot instead.
export function validateVapidKeys(publicKey: string, privateKey: string): string | null {
  if (!publicKey) return 'VAPID_PUBLIC_KEY is not set'
  if (!privateKey) return 'VAPID_PRIVATE_KEY is not set'
  if (!URL_SAFE_BASE64.test(publicKey)) return 'VAPID_PUBLIC_KEY is not URL-safe base64 without padding'
  if (!URL_SAFE_BASE64.test(privateKey)) return 'VAPID_PRIVATE_KEY is not URL-safe base64 without padding'
  const pub = Buffer.from(publicKey, 'base64url')
  const priv = Buffer.from(privateKey, 'base64url')
  if (pub.length !== 65 || pub[0] !== 0x04) return 'VAPID_PUBLIC_KEY is not an uncompressed P-256 public key (65 bytes)'
  if (priv.length !== 32) return 'VAPID_PRIVATE_KEY is not a P-256 private key (32 bytes)'
  try {
    const ecdh = createECDH('prime256v1')
    ecdh.setPrivateKey(priv)
    if (!ecdh.getPublicKey().equals(pub)) return 'VAPID_PUBLIC_KEY does not match VAPID_PRIVATE_KEY'
  } catch {
    return 'VAPID_PRIVATE_KEY is not a valid P-256 private key'
  }
  return null
}
