import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { lazyPackage } from '../lib/lazy-package.ts'
import { projectPath } from '../lib/paths.ts'
import { soundImages } from './sound-images.ts'
import { listFiles } from '../lib/files.ts'

// Where `npm run build:assets` writes the browser's files; server/rendering/assets.ts serves them.
export const ASSETS_OUT = projectPath('tmp', 'assets')

// esbuild is loaded only when a build is needed, never by a server whose assets are built.
const esbuild = lazyPackage<typeof import('esbuild')>('esbuild')

const COMPRESSIBLE = /\.(js|css|svg|json)$/

// Bundles public/js (TypeScript) and public/css with esbuild, copies public/images, draws the
// /play sound cards, and writes a .gz and a .br beside every compressible file.
// The files are written to a fresh folder that then replaces outDir, so a server reading
// outDir never sees half a build.
export function buildAssets(outDir = ASSETS_OUT): string[] {
  const finalDir = outDir
  outDir = `${finalDir}.building-${process.pid}`
  rmSync(outDir, { recursive: true, force: true })
  mkdirSync(outDir, { recursive: true })
  const { buildSync } = esbuild()
  buildSync({
    entryPoints: { application: projectPath('public', 'js', 'application.ts'), 'service-worker': projectPath('public', 'js', 'service-worker.ts') },
    bundle: true,
    format: 'esm',
    target: ['chrome120', 'safari17', 'firefox121'],
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    outdir: outDir,
    logLevel: 'error',
  })
  buildSync({
    entryPoints: [projectPath('public', 'css', 'application.css')],
    bundle: true,
    minify: true,
    target: ['chrome120', 'safari17', 'firefox121'],
    loader: { '.svg': 'dataurl' },
    outdir: outDir,
    logLevel: 'error',
  })
  copyTree(projectPath('public', 'images'), join(outDir, 'images'))
  for (const [name, svg] of soundImages()) write(join(outDir, 'sounds', name), svg)
  const files = listFiles(outDir)
  for (const file of files.filter((f) => COMPRESSIBLE.test(f))) {
    const body = readFileSync(file)
    writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }))
    writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }))
  }
  const built = files.map((f) => relative(outDir, f))
  rmSync(finalDir, { recursive: true, force: true })
  try {
    renameSync(outDir, finalDir)
  } catch (error) {
    // Another process finished the same build first; its copy is as good as ours.
    rmSync(outDir, { recursive: true, force: true })
    if (!existsSync(finalDir)) throw error
  }
  return built
}

// Builds the assets unless a build is already there (tests and `npm start` build them first).
export function ensureAssets(outDir = ASSETS_OUT): void {
  if (!existsSync(join(outDir, 'application.js'))) buildAssets(outDir)
}

function write(file: string, contents: string | Buffer): void {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, contents)
}

function copyTree(from: string, to: string): void {
  for (const file of listFiles(from)) write(join(to, relative(from, file)), readFileSync(file))
}

// Run as a command (npm run build:assets / pretest); the path check keeps it quiet when bundled.
if (/server[\\/]build[\\/]assets\.ts$/.test(process.argv[1] ?? '')) {
  const started = Date.now()
  const files = buildAssets()
  console.log(`assets: ${files.length} files in ${relative(process.cwd(), ASSETS_OUT) || '.'} (${Date.now() - started} ms)`)
}
