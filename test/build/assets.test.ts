import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { test } from 'node:test'
import { buildAssets } from '../../server/build/assets.ts'

test('building the assets bundles the client, the styles and the service worker, draws the sound cards, and precompresses them', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'campfire-assets-'))
  t.after(() => rmSync(join(dir), { recursive: true, force: true }))
  const out = join(dir, 'assets')
  const files = buildAssets(out)

  for (const name of ['application.js', 'application.css', 'service-worker.js', 'images/campfire.svg', 'sounds/yay.svg', 'sounds/top.svg']) {
    assert.ok(files.includes(name), `${name} is built`)
    const body = readFileSync(join(out, name))
    assert.deepEqual(gunzipSync(readFileSync(join(out, `${name}.gz`))), body)
    assert.deepEqual(brotliDecompressSync(readFileSync(join(out, `${name}.br`))), body)
  }
  assert.ok(!files.includes('sounds/tada.svg'), 'sounds shown as text have no card')
  const css = readFileSync(join(out, 'application.css'), 'utf8')
  assert.match(css, /\.icon--send|\.icon--arrow-up/)
  assert.match(css, /data:image\/svg\+xml/, 'icons are inlined')
  assert.match(css, /prefers-color-scheme:\s*dark/)
  const js = readFileSync(join(out, 'application.js'), 'utf8')
  assert.match(js, /turbo-cable-stream-source/)
  assert.match(js, /lexxy-editor/)
})
