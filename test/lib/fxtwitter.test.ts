import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fxtwitterUrl } from '../../server/lib/fxtwitter.ts'

test('a post on twitter.com or x.com, on any of their hosts, is fetched from fxtwitter.com', () => {
  assert.equal(fxtwitterUrl('https://twitter.com/jack/status/20'), 'https://fxtwitter.com/jack/status/20')
  assert.equal(fxtwitterUrl('https://www.twitter.com/jack/status/20'), 'https://fxtwitter.com/jack/status/20')
  assert.equal(fxtwitterUrl('https://mobile.twitter.com/jack/status/20'), 'https://fxtwitter.com/jack/status/20')
  assert.equal(fxtwitterUrl('https://x.com/jack/status/20'), 'https://fxtwitter.com/jack/status/20')
  assert.equal(fxtwitterUrl('https://www.x.com/jack/status/20'), 'https://fxtwitter.com/jack/status/20')
  assert.equal(fxtwitterUrl('https://X.COM/Jack_B/status/1790000000000000000'), 'https://fxtwitter.com/Jack_B/status/1790000000000000000')
})

test('only the host changes: the query, the path after the id, the scheme and the port stay', () => {
  assert.equal(fxtwitterUrl('https://x.com/jack/status/20?s=46&t=abc'), 'https://fxtwitter.com/jack/status/20?s=46&t=abc')
  assert.equal(fxtwitterUrl('https://twitter.com/jack/status/20/photo/1'), 'https://fxtwitter.com/jack/status/20/photo/1')
  assert.equal(fxtwitterUrl('https://twitter.com/jack/statuses/20'), 'https://fxtwitter.com/jack/statuses/20')
  assert.equal(fxtwitterUrl('https://x.com/i/web/status/20'), 'https://fxtwitter.com/i/web/status/20')
  assert.equal(fxtwitterUrl('https://x.com/i/status/20'), 'https://fxtwitter.com/i/status/20')
  assert.equal(fxtwitterUrl('http://x.com:8080/jack/status/20'), 'http://fxtwitter.com:8080/jack/status/20')
  assert.equal(fxtwitterUrl('https://x.com/jack/status/20#reply'), 'https://fxtwitter.com/jack/status/20')
})

test('links on twitter.com or x.com that are not a post are fetched as they are', () => {
  for (const url of [
    'https://twitter.com/', 'https://x.com', 'https://x.com/jack', 'https://x.com/jack/likes', 'https://x.com/jack/status/',
    'https://x.com/jack/status/abc', 'https://x.com/jack/status/20abc', 'https://x.com/search?q=status/20', 'https://x.com/home?next=/jack/status/20',
  ]) assert.equal(fxtwitterUrl(url), null, url)
})

test('lookalike hosts, other schemes and anything that is not a URL are left alone', () => {
  for (const url of [
    'https://evil-x.com/jack/status/20', 'https://x.com.evil/jack/status/20', 'https://twitter.com.example/jack/status/20', 'https://nottwitter.com/jack/status/20',
    'https://api.x.com/jack/status/20', 'https://fxtwitter.com/jack/status/20', 'https://x.co/jack/status/20', 'https://evil.example/x.com/jack/status/20',
    'https://evil.example/?u=https://x.com/jack/status/20', 'ftp://x.com/jack/status/20', 'javascript://x.com/jack/status/20', 'x.com/jack/status/20', 'not a url', '',
  ]) assert.equal(fxtwitterUrl(url), null, url)
})
