import fp from 'fastify-plugin'
import { workerSource } from '../lib/paths.ts'
import type { PasswordTask } from '../workers/password.ts'
import { LazyPool } from '../lib/lazy-pool.ts'

export interface Passwords {
  hash(password: string): Promise<string>
  verify(password: string, digest: string | null): Promise<boolean>
}

declare module 'fastify' {
  interface FastifyInstance {
    passwords: Passwords
  }
}

// bcrypt runs on worker threads; the queue is bounded so a flood of sign-ins waits or is
// refused instead of growing without limit.
export default fp(
  async function passwords(app, options: { threads: number; cost?: number; compiledWorkers?: string }) {
    const pool = new LazyPool({
      ...workerSource('password', options.compiledWorkers),
      minThreads: 0,
      idleTimeout: 60_000,
      maxThreads: Math.max(1, options.threads),
      maxQueue: 256,
    })
    // Unset: the worker's own cost (workers/password.ts), which the admin scripts use too.
    const cost = options.cost
    app.decorate('passwords', {
      hash: (password: string) => pool.run({ op: 'hash', password, cost } satisfies PasswordTask) as Promise<string>,
      verify: (password: string, digest: string | null) => pool.run({ op: 'verify', password, digest } satisfies PasswordTask) as Promise<boolean>,
    })
    app.addHook('onClose', async () => {
      await pool.destroy()
    })
  },
  { name: 'passwords' },
)
