// `npm run generate-secrets`: a new SECRET_KEY_BASE, 64 random bytes as 128 hex characters, the
// shape of Rails' `bin/rails secret`. Changing it signs everyone out and breaks signed links
// (avatars, transfer links) made before; give a moved Campfire the value it already has.
import { randomBytes } from 'node:crypto'
import { readCommandLine } from './support/command-line.ts'

readCommandLine({
  name: 'generate-secrets',
  summary: 'Prints SECRET_KEY_BASE=<128 hex characters> (64 random bytes) to add to the environment.',
  options: {},
  notes: 'Example: npm run --silent generate-secrets >> .env',
})

process.stdout.write(`SECRET_KEY_BASE=${randomBytes(64).toString('hex')}\n`)
