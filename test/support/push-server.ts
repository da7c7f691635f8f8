// The app as server/main.ts builds it from the environment, but allowed to deliver Web Push to a
// test's own push service on loopback, whose certificate (the PEM file PUSH_SERVICE_CA_FILE) it
// trusts. Run by bench:push and by the bell's browser test. On SIGTERM it prints its push counts
// ({"pushStats":…}) and closes.
import { readFileSync } from 'node:fs'
import { buildApp } from '../../server/app.ts'
import { loadConfig } from '../../server/config.ts'

const config = loadConfig()
const app = await buildApp({
  config,
  webPush: {
    permitsEndpoint: (url) => url.protocol === 'https:' && url.hostname === '127.0.0.1',
    isAllowedAddress: (address) => address === '127.0.0.1',
    ca: readFileSync(process.env.PUSH_SERVICE_CA_FILE!, 'utf8'),
  },
})
process.once('SIGTERM', () => {
  process.stdout.write(`${JSON.stringify({ pushStats: app.webPush.stats() })}\n`)
  void app.close().then(() => process.exit(0))
})
await app.listen({ port: config.httpPort, host: config.httpBind })
