import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { projectPath } from '../../server/lib/paths.ts'
import { tempStorage } from '../helper.ts'

// A bundle compiled as the server's is (CommonJS, whitespace left out, a source map beside it)
// from a source whose third line throws; run as dist/main.js runs the server, in a process of
// its own with the given node flags: the stack the error had.
async function stackOfBundle(t: { after: (fn: () => void) => void }, flags: string[]): Promise<{ stack: string; source: string; bundle: string }> {
  const folder = tempStorage(t)
  const source = join(folder, 'thrower.ts')
  writeFileSync(source, [
    'export function explode(): never {',
    '  const reason: string = "from the source"',
    '  throw new Error(reason)',
    '}',
    'try { explode() } catch (error) { (globalThis as { __stack?: string }).__stack = (error as Error).stack }',
  ].join('\n'))
  const bundle = join(folder, 'server.cjs')
  await build({ entryPoints: [source], outfile: bundle, bundle: true, platform: 'node', format: 'cjs', minifyWhitespace: true, sourcemap: true, logLevel: 'warning' })
  const lib = (name: string) => JSON.stringify(pathToFileURL(projectPath('server', 'lib', name)).href)
  const code = `
    import { mapBundleFrames } from ${lib('bundle-stack-traces.ts')}
    import { runBundle } from ${lib('code-cache.ts')}
    mapBundleFrames(${JSON.stringify(bundle)})
    runBundle({ file: ${JSON.stringify(bundle)}, digest: 'test', encoding: 'utf8' }, false)
    console.log(globalThis.__stack)`
  const stack = execFileSync(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', code], { cwd: projectPath(), encoding: 'utf8' })
  return { stack, source, bundle }
}

test('under --enable-source-maps, a stack trace through the compiled server names the source’s file, line and column', async (t) => {
  const { stack, source, bundle } = await stackOfBundle(t, ['--enable-source-maps'])
  const [headline, first] = stack.split('\n')
  assert.equal(headline, 'Error: from the source')
  assert.match(first!, new RegExp(`^    at explode \\(${source.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:3:9\\)$`))
  assert.ok(!stack.includes(`${bundle}:`), stack)
})
