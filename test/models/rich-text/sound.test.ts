import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { findSound, SOUND_NAMES, soundFor } from '../../../server/models/rich-text/index.ts'

describe('sounds', () => {
  test('there are the 56 built-in sounds, sorted by name', () => {
    assert.equal(SOUND_NAMES.length, 56)
    assert.deepEqual(SOUND_NAMES, [...SOUND_NAMES].sort())
    assert.equal(SOUND_NAMES[0], '56k')
    assert.equal(SOUND_NAMES.at(-1), 'yodel')
  })

  test('a message that is exactly /play and a known name is a sound', () => {
    assert.deepEqual(soundFor('/play tada'), { name: 'tada', audio: 'sounds/tada.mp3', text: 'plays a fanfare 🎏' })
    assert.deepEqual(soundFor('/play yay'), { name: 'yay', audio: 'sounds/yay.mp3', image: { file: 'sounds/yay.webp', width: 103, height: 50 } })
  })

  test('deeper plays its own sound but shows the top image', () => {
    assert.deepEqual(findSound('deeper'), { name: 'deeper', audio: 'sounds/deeper.mp3', image: { file: 'sounds/top.webp', width: 188, height: 80 } })
  })

  test('anything else is not a sound', () => {
    for (const text of ['/play nope', 'please /play tada', '/play tada now', '/play  tada', '/PLAY tada', '/play tada\n', '/play toString', '/play constructor', '']) {
      assert.equal(soundFor(text), null, text)
    }
  })

  test('every sound has either an image or a line of text', () => {
    for (const name of SOUND_NAMES) {
      const sound = findSound(name)
      assert.ok(sound && (sound.image === undefined) !== (sound.text === undefined), name)
    }
    assert.equal(SOUND_NAMES.filter((name) => findSound(name)?.image).length, 15)
  })
})
