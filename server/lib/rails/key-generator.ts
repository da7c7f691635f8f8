import { pbkdf2Sync } from 'node:crypto'

// ActiveSupport::KeyGenerator behind Rails.application.key_generator: PBKDF2 over
// secret_key_base with the salt, 1000 iterations, SHA256 (Rails ≥ 7.0 defaults), 64 bytes.
export class KeyGenerator {
  private readonly cache = new Map<string, Buffer>()

  constructor(
    private readonly secret: string,
    private readonly iterations = 1000,
    private readonly digest: 'sha1' | 'sha256' = 'sha256',
  ) {}

  generateKey(salt: string, length = 64): Buffer {
    const id = `${salt}\u0000${length}`
    let key = this.cache.get(id)
    if (!key) {
      key = pbkdf2Sync(this.secret, salt, this.iterations, length, this.digest)
      this.cache.set(id, key)
    }
    return key
  }
}
