import addressparser from 'nodemailer/lib/addressparser/index.js'

// One mailbox: nodemailer writes a header from these parts itself (quoting or encoding the
// name), so a name can never add an address or a header.
export interface Mailbox {
  name: string
  address: string
}

// MAIL_FROM ("Campfire <campfire@example.com>" or a bare address) as one mailbox, or null when
// it is not exactly one address.
export function parseMailbox(text: string): Mailbox | null {
  if (/[\u0000-\u001f\u007f]/.test(text)) return null
  const parsed = addressparser(text, { flatten: true })
  if (parsed.length !== 1) return null
  const [{ name, address }] = parsed as [Mailbox]
  if (!/^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+$/.test(address)) return null
  return { name, address }
}
