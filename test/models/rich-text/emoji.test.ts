import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { isAllEmoji } from '../../../server/models/rich-text/index.ts'

describe('isAllEmoji', () => {
  test('a message of only emoji is all emoji', () => {
    assert.ok(isAllEmoji('😄🤘'))
    assert.ok(isAllEmoji('❤️'))
    assert.ok(isAllEmoji('👍🏽'))
    assert.ok(isAllEmoji('🇩🇰'))
  })

  test('words next to emoji are not all emoji', () => {
    assert.ok(!isAllEmoji('Haha! 😄🤘'))
    assert.ok(!isAllEmoji('🔥\nmultiple lines\n💯'))
  })

  test('whitespace between emoji breaks the run, as upstream', () => {
    assert.ok(!isAllEmoji('🔥 💯'))
  })

  test('an empty string or plain digits are not emoji', () => {
    assert.ok(!isAllEmoji(''))
    assert.ok(!isAllEmoji('123'))
    assert.ok(!isAllEmoji('#'))
  })
})
