import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { compareVersions, parseUserAgent, products } from '../../server/lib/user-agent.ts'

// Made by test/fixtures/user-agents/generate.rb with Ruby and the useragent gem upstream pins.
const vectors = JSON.parse(readFileSync(new URL('../fixtures/user-agents/vectors.json', import.meta.url), 'utf8')) as {
  agents: { name: string; header: string; browser: string; version: string; bot: boolean; blocked: boolean }[]
}

test('every header in the Ruby-made vectors is read as the useragent gem reads it: family, version, bot', () => {
  assert.ok(vectors.agents.length > 80)
  for (const vector of vectors.agents) {
    assert.deepEqual(parseUserAgent(vector.header), { browser: vector.browser, version: vector.version, bot: vector.bot }, vector.name)
  }
})

test('a header is split into products, versions and comments', () => {
  assert.deepEqual(products('Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0'), [
    { product: 'Mozilla', version: '5.0', comment: ['X11', 'Linux x86_64', 'rv:121.0'] },
    { product: 'Gecko', version: '20100101', comment: null },
    { product: 'Firefox', version: '121.0', comment: null },
  ])
  assert.deepEqual(products('curl/8.5.0'), [{ product: 'curl', version: '8.5.0', comment: null }])
  assert.equal(products('a/1 '.repeat(1000)).length, 64)
})

test('versions compare as the gem compares them', () => {
  assert.equal(compareVersions('119.0.0.0', '120'), -1)
  assert.equal(compareVersions('120.0.6099.71', '120'), 1)
  assert.equal(compareVersions('120.0.0.0', '120'), 0)
  assert.equal(compareVersions('17.1.2', '17.2'), -1)
  assert.equal(compareVersions('17.2', '17.2'), 0)
  assert.equal(compareVersions('18.0', '17.2'), 1)
  assert.equal(compareVersions('121.0a1', '121'), -1)
  assert.equal(compareVersions('abc', '120'), -1)
  assert.equal(compareVersions('1.2.3.4.5.6.7', '1.2.3.4.5.6.8'), 0)
})
