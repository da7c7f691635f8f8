// Compiles the server for `npm start`: server/main.ts (as dist/server.cjs, which dist/main.js runs
// through V8's code cache), each piscina worker and each admin script (server/admin/*.ts, as
// dist/admin/<name>.js) become plain JavaScript files in dist/ (packages mostly stay in
// node_modules), so production runs on node alone, without the TypeScript loader and the
// memory it holds. `npm run dev` runs the TypeScript sources directly; the tests that start a
// server process run this same bundle, compiled into tmp/test-server/ (test/support/compiled-server.ts).
import { build, type Plugin } from 'esbuild'
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { projectPath } from '../lib/paths.ts'
import { pruneOlderThanADay } from '../lib/prune-old-entries.ts'

const BUNDLED = [
  '@redis/client', 'fastify', 'avvio', 'find-my-way', 'pino', 'light-my-request', '@fastify/', 'ajv', 'fast-json-stringify', 'eta', 'qs', 'lru-cache', 'parse5', 'uqr', 'fastify-plugin', 'ws', 'duplexify', 'readable-stream',
  // What those require in turn: qs's side-channel alone is some twenty tiny packages, a tenth of a cold start when each is resolved and loaded from node_modules.
  'side-channel', 'side-channel-list', 'side-channel-map', 'side-channel-weakmap', 'object-inspect', 'es-errors', 'es-define-property', 'es-object-atoms', 'get-intrinsic', 'get-proto', 'call-bind-apply-helpers', 'call-bound', 'dunder-proto', 'function-bind', 'gopd', 'has-symbols', 'hasown', 'math-intrinsics',
  // Loaded at every start, so bundled too: parse5's entity tables, the backup schedule's cron
  // parser and the address parser that checks the email settings (nodemailer itself stays out).
  'entities', 'croner', 'nodemailer/lib/addressparser',
  '@pinojs/redact', 'abstract-logging', 'atomic-sleep', 'cookie', 'dequal', 'end-of-stream', 'fast-deep-equal', 'fast-querystring', 'fast-uri', 'fastq', 'inherits', 'ipaddr.js', 'on-exit-leak-free', 'pino-std-serializers', 'process-warning', 'quick-format-unescaped', 'rfdc', 'safe-regex2', 'ret', 'safe-stable-stringify', 'secure-json-parse', 'semver', 'set-cookie-parser', 'sonic-boom', 'stream-shift', 'string_decoder', 'safe-buffer', 'toad-cache', 'util-deprecate', 'reusify', 'async-function', 'async-generator-function', 'generator-function', 'once', 'wrappy', 'fast-decode-uri-component',
]

// Fastify's schema compilers stay in node_modules, though under a bundled prefix: no route has a
// schema (app.ts turns one away), so they are never required, and bundled in they were a tenth of
// the file V8 reads at every start (with Ajv and fast-uri behind them).
const NEVER_BUNDLED = ['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler']

// Packages stay in node_modules, but for the bundled ones. In the ESM build a package's own
// import() of another (@fastify/cookie's of cookie) stays Node's too: bundled into a chunk of its
// own, a CommonJS package would answer only a default export. The server's CommonJS file has no
// chunks, and bundles what it imports on first use like the rest (each module runs when first
// imported, as before).
function externalPackagesExcept(bundled: string[], options: { dynamicImportsExternal: boolean }): Plugin {
  const matches = (name: string, prefix: string) => name === prefix || name.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)
  const isBundled = (name: string) => !NEVER_BUNDLED.some((prefix) => matches(name, prefix)) && bundled.some((prefix) => matches(name, prefix))
  return {
    name: 'external-packages',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('node:') || (options.dynamicImportsExternal && args.kind === 'dynamic-import') || !isBundled(args.path)) return { path: args.path, external: true }
        return undefined
      })
    },
  }
}

// The ESM-only packages the server imports on first use (single sign-on), bundled into its
// CommonJS file: a vm.Script's import() of a package does not survive V8's code cache.
const BUNDLED_IN_SERVER = ['openid-client', 'oauth4webapi', 'jose']

// Compiles the server into `outdir` (dist/ for `npm start`); without the admin scripts when told.
export async function compileServer(outdir: string, options: { admin?: boolean } = {}): Promise<void> {
  const server = await compileServerFile(outdir)
  const workers = readdirSync(projectPath('server', 'workers')).filter((file) => file.endsWith('.ts'))
  const adminScripts = options.admin === false ? [] : readdirSync(projectPath('server', 'admin')).filter((file) => file.endsWith('.ts'))
  await build({
    entryPoints: [
      // main.js runs server.cjs (server/launch.ts).
      { in: projectPath('server', 'launch.ts'), out: 'main' },
      // The container image's command, which runs dist/main.js after it (server/container.ts).
      { in: projectPath('server', 'container.ts'), out: 'container' },
      // The image's HEALTHCHECK: GET /up from inside the container (server/healthcheck.ts).
      { in: projectPath('server', 'healthcheck.ts'), out: 'healthcheck' },
      ...workers.map((file) => ({ in: projectPath('server', 'workers', file), out: `workers/${file.replace(/\.ts$/, '')}` })),
      ...adminScripts.map((file) => ({ in: projectPath('server', 'admin', file), out: `admin/${file.replace(/\.ts$/, '')}` })),
    ],
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // A module imported with import() becomes a file of its own, read when first imported: Redis's
    // client only with REDIS_URL, the admin-only and rare parts when used.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    // Packages stay in node_modules, but for these pure-JavaScript ones, bundled in: each is
    // hundreds of small modules, whose resolving and loading was most of a worker's boot.
    plugins: [externalPackagesExcept(BUNDLED, { dynamicImportsExternal: true })],
    // The bundled CommonJS packages require the external ones.
    banner: { js: "import { createRequire as __campfireRequire } from 'node:module'; const require = __campfireRequire(import.meta.url);" },
    define: { CAMPFIRE_SERVER_DIGEST: JSON.stringify(server.digest), CAMPFIRE_SERVER_ENCODING: JSON.stringify(server.encoding) },
    sourcemap: true,
    logLevel: 'warning',
  })
  // Chunks are named by their content, so each build that changed the code adds new ones. A
  // server still running from an earlier build may yet import one of its own on first use (the
  // metrics' first scrape, say), so only those no build has written for a day are removed; the
  // code caches of earlier bundles likewise.
  pruneOlderThanADay(join(outdir, 'chunks'))
  pruneOlderThanADay(join(outdir, 'code-cache'))
}

// server.cjs: main.ts and everything it imports, in one CommonJS file that server/launch.ts runs
// through V8's code cache (lib/code-cache.ts; Node 20 caches no ES module's code). Whitespace and
// comments are left out, and every character is ASCII, so a start reads it without decoding.
async function compileServerFile(outdir: string): Promise<{ digest: string; encoding: 'latin1' | 'utf8' }> {
  const file = join(outdir, 'server.cjs')
  await build({
    entryPoints: [projectPath('server', 'main.ts')],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    plugins: [externalPackagesExcept([...BUNDLED, ...BUNDLED_IN_SERVER], { dynamicImportsExternal: false })],
    // An import() left (of a package in node_modules) becomes a require(): see BUNDLED_IN_SERVER.
    supported: { 'dynamic-import': false },
    // import.meta.url, which lib/paths.ts and the lazy loaders read, is the file's own URL.
    define: { 'import.meta.url': '__campfireFileUrl' },
    banner: { js: "var __campfireFileUrl = require('node:url').pathToFileURL(__filename).href;" },
    minifyWhitespace: true,
    charset: 'ascii',
    legalComments: 'external',
    sourcemap: true,
    logLevel: 'warning',
  })
  const bytes = readFileSync(file)
  return { digest: createHash('sha256').update(bytes).digest('hex').slice(0, 16), encoding: bytes.every((byte) => byte < 0x80) ? 'latin1' : 'utf8' }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = performance.now()
  await compileServer(projectPath('dist'))
  console.log(`compiled the server into dist/ in ${Math.round(performance.now() - started)} ms`)
}
