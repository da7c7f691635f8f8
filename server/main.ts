import { buildApp } from './app.ts'
import { ConfigError, loadConfig, type Config } from './config.ts'
import { startImageThreads } from './lib/images.ts'

function configOrExit(): Config {
  try {
    return loadConfig()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    console.error(`Campfire cannot start: ${error.message}`)
    process.exit(78)
  }
}

const config = configOrExit()
const app = await buildApp({ config })

if (config.secretKeyBaseSource === 'generated') app.log.warn('SECRET_KEY_BASE was not set: generated one and kept it in the storage folder')
if (config.vapidProblem) app.log.warn(`Web Push is disabled: ${config.vapidProblem}`)
if (app.video.problem) app.log.warn(app.video.problem)
await startImageThreads()

let closing = false
async function shutdown(signal: string) {
  if (closing) return
  closing = true
  app.log.info({ signal }, 'shutting down')
  const timer = setTimeout(() => process.exit(1), 10_000)
  timer.unref()
  await app.close()
  process.exit(0)
}
process.on('SIGINT', () => void shutdown('SIGINT'))
process.on('SIGTERM', () => void shutdown('SIGTERM'))

await app.listen({ port: config.httpPort, host: config.httpBind })
