import type { Piscina } from 'piscina'
import { lazyPackage } from './lazy-package.ts'

const piscina = lazyPackage<typeof import('piscina')>('piscina')

type Options = NonNullable<ConstructorParameters<typeof Piscina>[0]>

// A piscina pool that is made, and piscina loaded, with its first task: the checkpointer's first
// checkpoint comes a second after boot, a password's with the first sign-in, a backup's at its
// hour. Loading piscina and its modules at boot was some 9 ms of every start.
export class LazyPool {
  #pool: Piscina | undefined

  constructor(private readonly options: Options) {}

  run<Result = unknown>(task: unknown, options?: Parameters<Piscina['run']>[1]): Promise<Result> {
    this.#pool ??= new (piscina().Piscina)(this.options)
    return this.#pool.run(task, options) as Promise<Result>
  }

  // Stops the pool's threads; a pool that never ran has none.
  async destroy(): Promise<void> {
    await this.#pool?.destroy()
  }
}
