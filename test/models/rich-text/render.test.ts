import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { renderBody, type Attachment } from '../../../server/models/rich-text/index.ts'
import { DAVID_SGID, lexxyBodyWithEmbed, mentionOf, rubyConf, trixBodyWithEmbed, tweetWithAvatar, tweetWithPhoto } from './bodies.ts'

const seen: Attachment[] = []
const renderAttachment = (a: Attachment): string | null => {
  seen.push(a)
  if (a.contentType === 'application/vnd.campfire.mention') return `<span class="mention" sgid="${a.sgid ?? ''}">David</span>`
  return a.contentType?.includes('opengraph') ? '<figure class="attachment--og">card</figure>' : null
}
const render = (html: string): string => renderBody(html, { renderAttachment })
const inner = (html: string): string => render(html).replace(/^<div class="trix-content">\n {2}/, '').replace(/\n<\/div>\n$/, '')

describe('renderBody', () => {
  test('wraps the body in the Action Text content layout', () => {
    assert.equal(render('bench write 1a2b'), '<div class="trix-content">\n  bench write 1a2b\n</div>\n')
    assert.equal(render('<p>001. Coffee machine is fixed!</p>'), '<div class="trix-content">\n  <p>001. Coffee machine is fixed!</p>\n</div>\n')
  })

  test('a message that is only an unfurled URL shows the embed without the URL text', () => {
    assert.equal(inner(trixBodyWithEmbed(rubyConf.href, rubyConf)), '<div><figure class="attachment--og">card</figure></div>')
  })

  test('a Lexxy message that is only an unfurled URL drops the paragraph holding the link', () => {
    assert.equal(inner(lexxyBodyWithEmbed(rubyConf.href, rubyConf)), '<figure class="attachment--og">card</figure>')
  })

  test('a message with more text than the unfurled URL keeps its text', () => {
    const text = `Hello ${rubyConf.href}`
    assert.match(inner(trixBodyWithEmbed(text, rubyConf)), /^<div>Hello <a href="https:\/\/example\.com\/conference\/"[^>]*>https:\/\/example\.com\/conference\/<\/a><figure/)
  })

  test('an x.com URL that unfurled to twitter.com counts as the same link, with or without a query', () => {
    for (const text of ['https://x.com/campfire/status/1800000000000000001', 'https://x.com/campfire/status/1800000000000000001?s=20']) {
      assert.equal(inner(trixBodyWithEmbed(text, tweetWithAvatar)), '<div class="cf-twitter-avatar"><figure class="attachment--og">card</figure></div>', text)
    }
  })

  test('an unfurled tweet whose image is the author avatar gets the twitter avatar class', () => {
    assert.match(inner(trixBodyWithEmbed(`Look ${tweetWithAvatar.href}`, tweetWithAvatar)), /^<div class="cf-twitter-avatar">Look /)
    assert.match(inner(lexxyBodyWithEmbed(tweetWithAvatar.href, tweetWithAvatar).replace('<p>', '<div>').replace('</p>', '</div>')), /^<div class="cf-twitter-avatar">/)
  })

  test('an unfurled tweet with a photo is not styled as an avatar', () => {
    assert.doesNotMatch(render(trixBodyWithEmbed(`Look ${tweetWithPhoto.href}`, tweetWithPhoto)), /cf-twitter-avatar/)
  })

  test('a forbidden tag is removed', () => {
    assert.equal(inner('Hello <img src="https://example.com/billion-laughs.svg">World'), 'Hello World')
  })

  test('a link with an unsafe scheme loses its href', () => {
    assert.equal(inner('<div><a href="javascript:alert(1)">x</a></div>'), '<div><a>x</a></div>')
    assert.equal(inner('<div><a href="data:text/html,pwned">x</a></div>'), '<div><a>x</a></div>')
  })

  test('event handler attributes are removed from allowed tags', () => {
    assert.equal(inner('<div><a href="/x" onmouseover="alert(1)">x</a> <span onclick="alert(2)">y</span></div>'), '<div><a href="/x">x</a> <span>y</span></div>')
  })

  test('safe links and formatting are preserved', () => {
    const body = '<div><a href="https://example.com">example</a> <strong>bold</strong> <code>code</code><ul><li>one</li><li>two</li></ul></div>'
    assert.equal(inner(body), body)
  })

  test('unsafe input is neutralised while benign content and mentions survive', () => {
    const html = inner(`<div><a href="javascript:alert(1)" onclick="x()">link</a> <a href="data:text/html,pwned">data</a> ` +
      `<span class="cf-twitter-avatar" onmouseover="y()">avatar</span> <img src="https://evil.example/x.svg"> Hey ${mentionOf(DAVID_SGID, 'David')}</div>`)
    assert.equal(html, `<div><a>link</a> <a>data</a> <span class="cf-twitter-avatar">avatar</span>  Hey <span class="mention" sgid="${DAVID_SGID}">David</span></div>`)
  })

  test('a mention attachment is handed to the renderer with its sgid, content type and content', () => {
    seen.length = 0
    render(`<div>Hey ${mentionOf(DAVID_SGID, 'David')}</div>`)
    assert.equal(seen.length, 1)
    assert.equal(seen[0]?.sgid, DAVID_SGID)
    assert.equal(seen[0]?.contentType, 'application/vnd.campfire.mention')
    assert.match(seen[0]?.content ?? '', /^<div class="mention" sgid="[^"]+">/)
  })

  test('an attachment the renderer declines is left out', () => {
    assert.equal(inner('a<action-text-attachment sgid="abc" content-type="image/png"></action-text-attachment>b'), 'ab')
  })

  test('bare URLs, www hosts and e-mail addresses become links that open in a new tab', () => {
    assert.equal(
      inner('see https://example.com/a_(b)). or www.example.org, or mail me@example.com'),
      'see <a href="https://example.com/a_(b)" target="_blank" rel="noopener noreferrer">https://example.com/a_(b)</a>). ' +
      'or <a href="http://www.example.org" target="_blank" rel="noopener noreferrer">www.example.org</a>, ' +
      'or mail <a href="mailto:me@example.com" target="_blank" rel="noopener noreferrer">me@example.com</a>',
    )
  })

  test('a URL with an ampersand is linked whole and escaped once', () => {
    assert.equal(inner('https://example.com/?a=1&amp;b=2'), '<a href="https://example.com/?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">https://example.com/?a=1&amp;b=2</a>')
  })

  test('URLs inside links, code and pre blocks are not linked again', () => {
    const body = '<a href="https://example.com">https://example.com</a> <code>http://localhost:3000</code><pre>curl https://example.com</pre>'
    assert.equal(inner(body), body)
  })

  test('text that only looks like part of a URL is left alone', () => {
    assert.equal(inner('ratio 3:1, path a/b, no www here, @David'), 'ratio 3:1, path a/b, no www here, @David')
  })
})
