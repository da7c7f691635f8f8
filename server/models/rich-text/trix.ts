import type { Attr } from './html.ts'
import { ATTACHMENT_ATTRIBUTES } from './names.ts'

// Trix submits attachments as <figure data-trix-attachment="{json}" data-trix-attributes="{json}">.
// Action Text canonicalises them (ActionText::Editor::TrixEditor#as_canonical) into an
// <action-text-attachment> carrying the JSON keys, dasherised, in ATTACHMENT_ATTRIBUTES order,
// with previewable, filesize, width and height typecast as ActionText::TrixAttachment does.

type Json = Record<string, unknown>

export function trixAttachmentAttributes(attachmentJson: string, attributesJson: string | undefined): Attr[] {
  const values: Json = { ...parseObject(attachmentJson), ...parseObject(attributesJson) }
  return ATTACHMENT_ATTRIBUTES.flatMap((name): Attr[] => {
    const key = name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase())
    return key in values ? [[name, typecast(name, values[key])]] : []
  })
}

function typecast(name: string, value: unknown): string {
  const integer = /^\s*[+-]?\d+\s*$/.test(rubyToS(value)) ? String(Number.parseInt(rubyToS(value), 10)) : undefined
  if (name === 'previewable') return String(rubyToS(value) === 'true')
  if (name === 'width' || name === 'height') return integer ?? ''
  if (name === 'filesize') return integer ?? rubyToS(value)
  return rubyToS(value)
}

function rubyToS(value: unknown): string {
  if (value === null || value === undefined) return ''
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

function parseObject(json: string | undefined): Json {
  try {
    const value: unknown = JSON.parse(json ?? '{}')
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {}
  } catch {
    return {}
  }
}
