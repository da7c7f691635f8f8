import assert from 'node:assert/strict'
import { test } from 'node:test'
import { LANGUAGES, promptIn, TRANSLATION_KEYS, translationsFor } from '../../../server/rendering/helpers/translations.ts'

test('every prompt is given in the same seven languages, flag first, in upstream order', () => {
  assert.deepEqual(LANGUAGES.map((language) => language.flag), ['🇺🇸', '🇪🇸', '🇫🇷', '🇮🇳', '🇩🇪', '🇧🇷', '🇯🇵'])
  for (const key of TRANSLATION_KEYS) {
    const translations = translationsFor(key)
    assert.deepEqual(translations.map((t) => t.lang), ['en-US', 'es', 'fr', 'hi', 'de', 'pt-BR', 'ja'], key)
    for (const translation of translations) assert.notEqual(translation.textHtml.trim(), '', `${key} ${translation.lang}`)
  }
})

test('the HTML of a translation is escaped and Latin-1 only, and still says the same text', () => {
  const french = translationsFor('chat_bots').find((t) => t.lang === 'fr')!
  assert.match(french.textHtml, /d&#39;autres sites/)
  const japanese = translationsFor('password').find((t) => t.lang === 'ja')!
  for (const translation of TRANSLATION_KEYS.flatMap((key) => translationsFor(key))) {
    assert.match(translation.textHtml + translation.flagHtml + translation.nameHtml, /^[\u0000-\u00ff]*$/)
  }
  const decoded = japanese.textHtml.replace(/&#x([0-9A-F]+);/g, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
  assert.equal(decoded, promptIn('password', 'ja'))
  assert.equal(decoded, 'パスワードを入力してください')
  assert.equal(translationsFor('email_address')[0]!.flagHtml, '&#x1F1FA;&#x1F1F8;')
})

test('an unknown key is a mistake that throws rather than an empty popup', () => {
  assert.throws(() => translationsFor('no_such_field' as never), /No translations for no_such_field/)
})
