import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { plainText, sanitizeBody } from '../../../server/models/rich-text/index.ts'
import { DAVID_SGID, KEVIN_SGID, lexxyBodyWithEmbed, mentionOf, resolveName, rubyConf, trixBodyWithEmbed } from './bodies.ts'

describe('plainText', () => {
  test('a busy-room paragraph gives exactly its words', () => {
    assert.equal(plainText('<p>001. Coffee machine is fixed!</p>', resolveName), '001. Coffee machine is fixed!')
  })

  test('a plain text body is its own plain text', () => {
    assert.equal(plainText('bench write 1a2b', resolveName), 'bench write 1a2b')
  })

  test('a mention reads as @Name', () => {
    assert.equal(plainText(`<div>Hey ${mentionOf(DAVID_SGID, 'David')} and ${mentionOf(KEVIN_SGID, 'Kevin')}</div>`, resolveName), 'Hey @David and @Kevin')
  })

  test('a mention that no longer resolves reads as the missing-attachment mark', () => {
    assert.equal(plainText(`<div>Hey ${mentionOf('Z29uZQ==--00', 'Gone')}</div>`, resolveName), 'Hey ☒')
  })

  test('an unfurled link embed adds nothing', () => {
    assert.equal(plainText(trixBodyWithEmbed(rubyConf.href, rubyConf), resolveName), rubyConf.href)
    assert.equal(plainText(lexxyBodyWithEmbed(rubyConf.href, rubyConf), resolveName), rubyConf.href)
  })

  test('other attachments read as their caption or file name', () => {
    assert.equal(plainText('<action-text-attachment sgid="abc" filename="report.pdf"></action-text-attachment>', () => null), '[report.pdf]')
    assert.equal(plainText('<action-text-attachment sgid="abc" filename="report.pdf" caption="Q3"></action-text-attachment>', () => null), '[Q3]')
    assert.equal(plainText('<action-text-attachment content-type="image/png" url="https://example.com/a.png"></action-text-attachment>', () => null), '[Image]')
    assert.equal(plainText('<action-text-attachment content-type="text/html" content="&lt;b&gt;bold&lt;/b&gt; words"></action-text-attachment>', () => null), 'bold words')
  })

  test('paragraphs and headings are separated by a blank line, line breaks by a newline', () => {
    assert.equal(plainText('<h1>Title</h1><p>First</p><p>Second<br>line</p>', resolveName), 'Title\n\nFirst\n\nSecond\nline')
  })

  test('each Trix div is a line and an empty one a blank line', () => {
    assert.equal(plainText('<div>one</div><div><br></div><div>two</div><div><br></div>', resolveName), 'one\n\ntwo')
  })

  test('entities are decoded', () => {
    assert.equal(plainText('<p>fish &amp; chips &lt;3 caf&eacute; &#x1F525;</p>', resolveName), 'fish & chips <3 café 🔥')
  })

  test('lists get bullets, numbers and indentation', () => {
    assert.equal(
      plainText('<ul><li>one</li><li>two<ol><li>a</li><li>b</li></ol></li></ul>', resolveName),
      '• one\n• two\n  1. a\n  2. b',
    )
  })

  test('block quotes get curly quotes and captions brackets', () => {
    assert.equal(plainText('<blockquote>wise words</blockquote><cite>David</cite>', resolveName), '“wise words”\n\nDavid')
    assert.equal(plainText('<blockquote> </blockquote>', resolveName), '“”')
    assert.equal(plainText('<figure><figcaption>A cat</figcaption></figure>', resolveName), '[A cat]')
  })

  test('script and style text never reaches the index', () => {
    assert.equal(plainText('a<script>var x</script><style>p{}</style>b', resolveName), 'ab')
  })

  test('trailing newlines are removed but other whitespace is kept, as upstream does', () => {
    assert.equal(plainText('<div> spaced </div>\n\n', resolveName), ' spaced ')
  })

  test('a body gives the same plain text before and after sanitizing', () => {
    const bodies = ['<p>Hi <b>there</b><iframe>x</iframe></p>', '<table><tr><td>a</td><td>b</td></tr></table>', `<div>Hey ${mentionOf(DAVID_SGID, 'David')}</div>`, '<u>under</u> &amp; <font>over</font>']
    for (const body of bodies) assert.equal(plainText(sanitizeBody(body), resolveName), plainText(body, resolveName), body)
  })
})
