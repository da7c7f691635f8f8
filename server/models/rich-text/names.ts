// Names fixed by Action Text and Campfire: they appear in stored bodies, so they must not change.

export const ATTACHMENT_TAG = 'action-text-attachment'

// ActionText::Attachment::ATTRIBUTES, in the order Action Text writes them.
export const ATTACHMENT_ATTRIBUTES = [
  'sgid', 'content-type', 'url', 'href', 'filename', 'filesize', 'width', 'height',
  'previewable', 'presentation', 'caption', 'content',
] as const

export const MENTION_CONTENT_TYPE = 'application/vnd.campfire.mention'
export const OPENGRAPH_CONTENT_TYPE = 'application/vnd.actiontext.opengraph-embed'
