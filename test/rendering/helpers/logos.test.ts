import { test } from 'node:test'
import assert from 'node:assert/strict'
import { accountLogoPath, numberTime, styleElementText } from '../../../server/rendering/helpers/logos.ts'

test('the logo path names its size first and carries the account’s updated_at as digits', () => {
  const account = { updated_at: '2026-03-01 12:00:05.123456' }
  assert.equal(accountLogoPath(account), '/account/logo?v=20260301120005123456')
  assert.equal(accountLogoPath(account, 'small'), '/account/logo?size=small&v=20260301120005123456')
  assert.equal(accountLogoPath(null, 'small'), '/account/logo?size=small')
  assert.equal(accountLogoPath(undefined), '/account/logo')
})

test('two changes within one second still give the logo two URLs', () => {
  assert.notEqual(numberTime('2026-03-01 12:00:05.000001'), numberTime('2026-03-01 12:00:05.900000'))
  assert.equal(numberTime('2026-03-01 12:00:05'), '20260301120005000000')
  assert.equal(numberTime('2026-03-01T12:00:05.5Z'), '20260301120005500000')
})

test('custom styles cannot close their style element, in any case', () => {
  assert.equal(styleElementText('a { b: c } </style><script>x</script>'), 'a { b: c } <\\/style><script>x</script>')
  assert.equal(styleElementText('</STYLE ></Style>'), '<\\/STYLE ><\\/Style>')
  assert.equal(styleElementText('a::after { content: "</" }'), 'a::after { content: "</" }')
})
