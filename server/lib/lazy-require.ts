import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

// A CommonJS package loaded the first time it is used rather than at boot: a worker restarted
// after a crash listens sooner without packages only some requests (or only a build) need.
export function lazily<T>(name: string): () => T {
  let loaded: T | undefined
  return () => (loaded ??= require(name) as T)
}
