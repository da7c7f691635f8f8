import { test } from 'node:test'
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { generateKeyPairSync } from 'node:crypto'
import { readOidcConfig, OidcConfigError } from '../server/oidc-config.ts'
import { ConfigError } from '../server/config.ts'
import { tempStorage, testConfig } from './helper.ts'

const base = { OIDC_ISSUER: 'https://idp.example.com/realms/team', OIDC_CLIENT_ID: 'campfire', OIDC_CLIENT_SECRET: 's3cret' }

test('without OIDC_ISSUER there is no single sign-on', () => {
  assert.equal(readOidcConfig({}), null)
  assert.equal(readOidcConfig({ OIDC_CLIENT_ID: 'campfire' }), null)
})

test('the defaults: the issuer host as the name, openid email profile, no domains, a 10 second timeout', () => {
  const config = readOidcConfig(base)!
  assert.equal(config.issuer.href, 'https://idp.example.com/realms/team')
  assert.equal(config.name, 'idp.example.com')
  assert.equal(config.scopes, 'openid email profile')
  assert.deepEqual(config.allowedDomains, [])
  assert.equal(config.timeoutSeconds, 10)
  assert.equal(config.clientSecret, 's3cret')
})

test('domains are lower-cased without a leading @, scopes gain openid, and the name is taken as given', () => {
  const config = readOidcConfig({ ...base, OIDC_ALLOWED_DOMAINS: ' Example.com, @team.example.org ', OIDC_SCOPES: 'email,profile groups', OIDC_NAME: 'Okta' })!
  assert.deepEqual(config.allowedDomains, ['example.com', 'team.example.org'])
  assert.equal(config.scopes, 'openid email profile groups')
  assert.equal(config.name, 'Okta')
})

test('a misconfiguration is refused at boot with a message naming the variable', (t) => {
  const refused = (env: Record<string, string>, pattern: RegExp) => assert.throws(() => readOidcConfig(env), (error: Error) => error instanceof OidcConfigError && pattern.test(error.message))
  refused({ ...base, OIDC_ISSUER: 'not a url' }, /OIDC_ISSUER/)
  refused({ ...base, OIDC_ISSUER: 'http://idp.example.com' }, /https/)
  refused({ ...base, OIDC_CLIENT_ID: '' }, /OIDC_CLIENT_ID/)
  refused({ ...base, OIDC_CLIENT_SECRET: '' }, /OIDC_CLIENT_SECRET or OIDC_CLIENT_PRIVATE_KEY_FILE/)
  refused({ ...base, OIDC_CLIENT_PRIVATE_KEY_FILE: '/nonexistent' }, /not both/)
  refused({ ...base, OIDC_CLIENT_SECRET: '', OIDC_CLIENT_PRIVATE_KEY_FILE: '/nonexistent/key.pem' }, /cannot be read/)
  refused({ ...base, OIDC_TIMEOUT_SECONDS: '0' }, /OIDC_TIMEOUT_SECONDS/)
  refused({ ...base, OIDC_TIMEOUT_SECONDS: '0.5' }, /OIDC_TIMEOUT_SECONDS must be a number of seconds from 1 to 120/)
  refused({ ...base, OIDC_TIMEOUT_SECONDS: '121' }, /from 1 to 120/)
  refused({ ...base, OIDC_CLIENT_PRIVATE_KEY_ALG: 'BOGUS' }, /OIDC_CLIENT_PRIVATE_KEY_ALG must be one of RS256, .*EdDSA, got "BOGUS"/)
  refused({ ...base, OIDC_CLIENT_PRIVATE_KEY_ALG: 'rs256' }, /OIDC_CLIENT_PRIVATE_KEY_ALG/)
  refused({ ...base, OIDC_ALLOWED_DOMAINS: 'example.com, not a domain' }, /OIDC_ALLOWED_DOMAINS takes email domains/)
  const notAKey = join(tempStorage(t), 'not-a-key.pem')
  writeFileSync(notAKey, 'hello')
  refused({ ...base, OIDC_CLIENT_SECRET: '', OIDC_CLIENT_PRIVATE_KEY_FILE: notAKey }, /PKCS#8/)
  assert.throws(() => testConfig(tempStorage(t), { ...base, OIDC_CLIENT_ID: '' }), ConfigError)
})

test('plain http is accepted for an issuer on loopback, and a PKCS#8 key file instead of a secret', (t) => {
  const keyFile = join(tempStorage(t), 'key.pem')
  writeFileSync(keyFile, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }))
  const config = readOidcConfig({ OIDC_ISSUER: 'http://127.0.0.1:9999', OIDC_CLIENT_ID: 'campfire', OIDC_CLIENT_PRIVATE_KEY_FILE: keyFile, OIDC_CLIENT_PRIVATE_KEY_ALG: 'ES256' })!
  assert.equal(config.clientSecret, null)
  assert.match(config.privateKeyPem!, /BEGIN PRIVATE KEY/)
  assert.equal(config.privateKeyAlgorithm, 'ES256')
})
