import { test } from 'node:test'
import assert from 'node:assert/strict'
import { GuardError, isPublicAddress, parsePublicUrl, resolveAllowed } from '../../server/lib/private-network-guard.ts'

const blocked = [
  // IPv4
  '0.0.0.0', '0.1.2.3', '10.0.0.1', '10.255.255.255', '100.64.0.1', '100.127.255.254', '127.0.0.1', '127.1.2.3',
  '169.254.169.254', '172.16.0.1', '172.31.255.255', '192.0.0.1', '192.0.0.170', '192.0.2.1', '192.88.99.1', '192.168.0.1',
  '192.168.255.255', '198.18.0.1', '198.19.255.255', '198.51.100.7', '203.0.113.9', '224.0.0.1', '239.255.255.250',
  '240.0.0.1', '255.255.255.255',
  // IPv6
  '::', '::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'febf::1', 'ff02::1', 'ff0e::1', '2001:db8::1',
  '2001:db8:ffff::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '::127.0.0.1',
  '::10.1.2.3', '::ffff:0:192.168.1.1', '64:ff9b::10.0.0.1', '64:ff9b::7f00:1', '64:ff9b:1::1', '64:ff9b:1:ffff::8.8.8.8',
  '2002:7f00:1::1', '2002:c0a8:101::1', '2002:0a00:0001::', '2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '100::1',
  'fec0::1', '3fff::1',
  // not addresses at all
  'not-an-ip', '', '1.2.3', '256.1.1.1',
]

const allowed = [
  '93.184.216.34', '8.8.8.8', '1.1.1.1', '100.63.255.255', '100.128.0.1', '172.15.255.255', '172.32.0.1', '192.169.0.1',
  '198.17.255.255', '198.20.0.1', '223.255.255.255', '11.0.0.1',
  '2606:4700::1111', '2606:4700:4700::1111', '2a00:1450:4009:80b::200e', '2001:4860:4860::8888', '::ffff:93.184.216.34',
  '::ffff:5db8:d822', '64:ff9b::8.8.8.8', '2002:5db8:d822::1',
]

test('the classifier refuses every non-public range', () => {
  for (const address of blocked) assert.equal(isPublicAddress(address), false, `${address} should be refused`)
})

test('the classifier allows public addresses, including public IPv4 embedded in IPv6', () => {
  for (const address of allowed) assert.equal(isPublicAddress(address), true, `${address} should be allowed`)
})

test('URLs must be http(s) without credentials', () => {
  assert.equal(parsePublicUrl('https://example.com/a?b#c').hostname, 'example.com')
  assert.equal(parsePublicUrl('/next', 'http://example.com/a').href, 'http://example.com/next')
  for (const bad of ['ftp://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'gopher://x/', 'http://user:pw@example.com/', 'http://user@example.com/', 'not a url', 'data:text/html,hi']) {
    assert.throws(() => parsePublicUrl(bad), GuardError, bad)
  }
})

test('resolution refuses a host if any of its addresses is not public', async () => {
  const lookup = async (host: string) => {
    if (host === 'mixed.test') return [{ address: '93.184.216.34', family: 4 as const }, { address: '10.0.0.1', family: 4 as const }]
    if (host === 'public.test') return [{ address: '2606:4700::1111', family: 6 as const }, { address: '93.184.216.34', family: 4 as const }]
    if (host === 'rebinding.test') return [{ address: '::ffff:127.0.0.1', family: 6 as const }]
    throw new Error('ENOTFOUND')
  }
  await assert.rejects(resolveAllowed('mixed.test', { lookup }), GuardError)
  await assert.rejects(resolveAllowed('rebinding.test', { lookup }), GuardError)
  await assert.rejects(resolveAllowed('nowhere.test', { lookup }), GuardError)
  assert.deepEqual(await resolveAllowed('public.test', { lookup }), { address: '2606:4700::1111', family: 6 })
  // Literals skip DNS and are classified directly.
  await assert.rejects(resolveAllowed('127.0.0.1'), GuardError)
  await assert.rejects(resolveAllowed('[::1]'), GuardError)
  await assert.rejects(resolveAllowed('[::ffff:7f00:1]'), GuardError)
  assert.deepEqual(await resolveAllowed('93.184.216.34'), { address: '93.184.216.34', family: 4 })
})

test('the real resolver refuses localhost', async () => {
  await assert.rejects(resolveAllowed('localhost'), GuardError)
})
