import { createRequire } from 'node:module'
import { onFirstUse } from './on-first-use.ts'

const requireFromHere = createRequire(import.meta.url)

// A CommonJS package loaded the first time it is needed, not when the server starts: loading
// sharp, nodemailer, prom-client, pino-pretty and yazl at import was about a third of a cold
// start, for features a start may never use (an upload, email, metrics, a terminal, an export).
// `name` must be a package the project depends on; its type comes from `typeof import(name)`.
export function lazyPackage<T>(name: string, prepare?: (loaded: T) => void): () => T {
  return onFirstUse(() => {
    const module = requireFromHere(name) as T
    prepare?.(module)
    return module
  })
}
