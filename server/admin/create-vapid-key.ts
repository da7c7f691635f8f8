// `npm run create-vapid-key`: a new Web Push key pair (P-256), as the two lines of an env file.
// The server checks the pair at boot (server/lib/vapid.ts); this one is checked the same way
// before it is printed. Browsers subscribed under an old pair stop getting pushes when it changes.
import webpush from 'web-push'
import { validateVapidKeys } from '../lib/vapid.ts'
import { fail, readCommandLine } from './support/command-line.ts'

const NAME = 'create-vapid-key'

readCommandLine({
  name: NAME,
  summary: [
    'Prints a new VAPID key pair for Web Push, URL-safe base64 without padding, as',
    'VAPID_PUBLIC_KEY=… and VAPID_PRIVATE_KEY=… lines to add to the environment.',
  ].join('\n'),
  options: {},
  notes: 'Example: npm run --silent create-vapid-key >> .env',
})

const { publicKey, privateKey } = webpush.generateVAPIDKeys()
const problem = validateVapidKeys(publicKey, privateKey)
if (problem) fail(NAME, `the generated pair is unusable: ${problem}`)
process.stdout.write(`VAPID_PUBLIC_KEY=${publicKey}\nVAPID_PRIVATE_KEY=${privateKey}\n`)
