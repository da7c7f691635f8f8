// dist/main.js, what `npm start`, the container and `node dist/main.js` run: it runs the compiled
// server (dist/server.cjs, built from main.ts) through V8's code cache (lib/code-cache.ts), with
// its stack traces mapped to the sources under --enable-source-maps. From the sources (`npm run
// dev`), main.ts runs directly and none of this applies. The build defines the two constants.
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { mapBundleFrames } from './lib/bundle-stack-traces.ts'
import { runBundle } from './lib/code-cache.ts'

declare const CAMPFIRE_SERVER_DIGEST: string
declare const CAMPFIRE_SERVER_ENCODING: 'latin1' | 'utf8'

const file = join(fileURLToPath(new URL('.', import.meta.url)), 'server.cjs')
mapBundleFrames(file)
runBundle({ file, digest: CAMPFIRE_SERVER_DIGEST, encoding: CAMPFIRE_SERVER_ENCODING })
