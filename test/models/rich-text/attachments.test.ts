import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  attachmentsIn, MENTION_CONTENT_TYPE, mentionAttachmentHtml, mentionedSgids, OPENGRAPH_CONTENT_TYPE, opengraphEmbedOf, sanitizeBody,
} from '../../../server/models/rich-text/index.ts'
import { DAVID_SGID, KEVIN_SGID, lexxyEmbed, mentionOf, rubyConf, trixEmbed } from './bodies.ts'

describe('attachments', () => {
  test('the content types are the ones Campfire and Action Text use', () => {
    assert.equal(MENTION_CONTENT_TYPE, 'application/vnd.campfire.mention')
    assert.equal(OPENGRAPH_CONTENT_TYPE, 'application/vnd.actiontext.opengraph-embed')
  })

  test('a mention element is written as Action Text stores it', () => {
    assert.equal(mentionAttachmentHtml(DAVID_SGID), `<action-text-attachment sgid="${DAVID_SGID}" content-type="application/vnd.campfire.mention"></action-text-attachment>`)
    assert.equal(
      mentionAttachmentHtml('abc', '<span class="mention">A & B</span>'),
      '<action-text-attachment sgid="abc" content-type="application/vnd.campfire.mention" content="&lt;span class=&quot;mention&quot;&gt;A &amp; B&lt;/span&gt;"></action-text-attachment>',
    )
  })

  test('a mention element is already in the stored form', () => {
    const mention = mentionAttachmentHtml(DAVID_SGID, '<span class="mention">David</span>')
    assert.equal(sanitizeBody(mention), mention)
  })

  test('attachments are read with their attributes in camel case', () => {
    const [mention, embed] = attachmentsIn(`<div>Hey ${mentionOf(DAVID_SGID, 'David')}</div>${trixEmbed(rubyConf)}`)
    assert.equal(mention?.sgid, DAVID_SGID)
    assert.equal(mention?.contentType, MENTION_CONTENT_TYPE)
    assert.equal(embed?.contentType, OPENGRAPH_CONTENT_TYPE)
    assert.equal(embed?.href, rubyConf.href)
    assert.equal(embed?.url, rubyConf.image)
    assert.equal(embed?.filename, rubyConf.title)
    assert.equal(embed?.caption, rubyConf.description)
  })

  test('content stored by Lexxy as a JSON string is read as HTML', () => {
    const [embed] = attachmentsIn(lexxyEmbed(rubyConf))
    assert.match(embed?.content ?? '', /^<actiontext-opengraph-embed><div class="og-embed gap">/)
  })

  test('unsafe attachment attributes are not handed out', () => {
    const [attachment] = attachmentsIn('<action-text-attachment sgid="&quot;><script>" href="javascript:alert(1)" url="data:image/png;base64,AA" content-type="text/html" content="<img src=x onerror=alert(1)>ok" onclick="x"></action-text-attachment>')
    assert.deepEqual(attachment, { contentType: 'text/html', content: '<img src="x">ok' })
  })

  test('an embed reads the same from Trix attributes and from Lexxy content', () => {
    const expected = { href: rubyConf.href, url: rubyConf.image, title: rubyConf.title, description: rubyConf.description }
    for (const html of [trixEmbed(rubyConf), lexxyEmbed(rubyConf)]) {
      const [attachment] = attachmentsIn(html)
      assert.deepEqual(attachment && opengraphEmbedOf(attachment), expected)
    }
  })

  test('an attachment that is not an embed has no embed details', () => {
    const [attachment] = attachmentsIn(mentionOf(DAVID_SGID, 'David'))
    assert.equal(attachment && opengraphEmbedOf(attachment), null)
  })

  test('mentioned sgids are listed once each, in order, without embeds', () => {
    const body = `${mentionOf(KEVIN_SGID, 'Kevin')} ${mentionOf(DAVID_SGID, 'David')} ${mentionOf(KEVIN_SGID, 'Kevin')}${trixEmbed(rubyConf)}`
    assert.deepEqual(mentionedSgids(body), [KEVIN_SGID, DAVID_SGID])
    assert.deepEqual(mentionedSgids('no mentions'), [])
  })
})
