// The Action Cable wire protocol (actioncable-v1-json), as @rails/actioncable speaks it.
// Server frames are built here as strings, with the keys in the order Rails writes them.

export const PROTOCOL = 'actioncable-v1-json'
// The sentinel @rails/actioncable offers last: a server that answers with it (or with nothing)
// is one the client will not talk to, and it closes the socket without reconnecting.
export const UNSUPPORTED_PROTOCOL = 'actioncable-unsupported'
const SERVER_PROTOCOLS: ReadonlySet<string> = new Set([PROTOCOL, UNSUPPORTED_PROTOCOL])

// Sec-WebSocket-Protocol negotiation, as Rails does it. Rails hands its protocol list
// (ActionCable::INTERNAL[:protocols], both names above) to websocket-driver, whose Hybi driver
// picks the first protocol in the *client's* list that is also in the server's and omits the
// header when none matches. Nothing in Action Cable refuses the upgrade over it:
// Connection::Base#process checks only that the request is a WebSocket upgrade and that its
// Origin is allowed, and #handle_open merely records websocket.protocol before connect and the
// welcome. So an upgrade naming no subprotocol, or only unknown ones, is accepted and welcomed
// here too, with no subprotocol in the answer. It is no security boundary either way: any
// client can send the header, and cross-site use of the cookie is stopped by the Origin check
// (routes/cable.ts). The stock client, the harness (which offers both names) and our load
// generators (test/load: both names, or actioncable-v1-json alone) all get actioncable-v1-json.
// The return value is what ws wants from handleProtocols: a name, or false for no header. The
// name is our own constant, not the client's: ws keeps it for the socket's life, and the
// client's is a slice of its whole Sec-WebSocket-Protocol header, which it would keep alive.
export function selectProtocol(offered: ReadonlySet<string>): string | false {
  for (const protocol of offered) if (SERVER_PROTOCOLS.has(protocol)) return protocol === PROTOCOL ? PROTOCOL : UNSUPPORTED_PROTOCOL
  return false
}

export const DISCONNECT_REASONS = {
  unauthorized: 'unauthorized',
  invalidRequest: 'invalid_request',
  serverRestart: 'server_restart',
  remote: 'remote',
} as const
export type DisconnectReason = (typeof DISCONNECT_REASONS)[keyof typeof DISCONNECT_REASONS]

export interface Limits {
  frameBytes: number // ws maxPayload: a bigger frame closes the socket with 1009
  identifierBytes: number
  subscriptions: number // per socket
  queuedCommands: number // waiting behind the one in flight; more is flooding
  queuedBytes: number
  malformedFrames: number // per socket, before it is disconnected
  bufferedBytes: number // unsent bytes a socket may hold before it counts as a slow consumer
  // Sockets written in one turn of the event loop: a fan-out to more is spread over turns (a
  // socket write is ~12 µs, so 512 keep a turn near 6 ms and requests are answered between).
  flushChunk: number
  // Typing notices per socket: the page sends a start at most once a second, so a start (or a
  // stop that ends nothing) beyond this rate and burst is dropped unheard.
  typingPerSecond: number
  typingBurst: number
  // Dropped notices a socket may run up, earning one back per 1/typingOverrunPerSecond s,
  // before it is disconnected. No person typing gets near it; a script looping on start does.
  typingOverrun: number
  typingOverrunPerSecond: number
}

export const LIMITS: Readonly<Limits> = Object.freeze({
  frameBytes: 64 * 1024,
  identifierBytes: 4 * 1024,
  subscriptions: 64,
  queuedCommands: 4096,
  queuedBytes: 4 * 1024 * 1024,
  malformedFrames: 64,
  bufferedBytes: 1024 * 1024,
  flushChunk: 512,
  typingPerSecond: 1,
  typingBurst: 3,
  typingOverrun: 64,
  typingOverrunPerSecond: 16,
})

export type Command =
  | { command: 'subscribe'; identifier: string }
  | { command: 'unsubscribe'; identifier: string }
  | { command: 'message'; identifier: string; data: unknown }

export const WELCOME = '{"type":"welcome"}'

export function ping(unixSeconds: number): string {
  return `{"type":"ping","message":${unixSeconds}}`
}

export function confirmation(identifier: string): string {
  return `{"identifier":${JSON.stringify(identifier)},"type":"confirm_subscription"}`
}

export function rejection(identifier: string): string {
  return `{"identifier":${JSON.stringify(identifier)},"type":"reject_subscription"}`
}

// Our answer to a frame that is not a command we can run. Action Cable has no error message,
// so it carries no identifier: @rails/actioncable hands unknown types to the subscriptions
// with that identifier, and there are none, so a stock client ignores it while a developer
// watching the socket sees why their frame went nowhere.
export function invalidCommand(reason: string): string {
  return JSON.stringify({ type: 'invalid_command', reason })
}

export function disconnect(reason: DisconnectReason, reconnect: boolean): string {
  return `{"type":"disconnect","reason":"${reason}","reconnect":${reconnect}}`
}

// `identifierJson` is JSON.stringify(identifier), computed once per broadcast and identifier;
// `messageJson` is the payload, serialised once per publication.
export function messageFrame(identifierJson: string, messageJson: string): string {
  return `{"identifier":${identifierJson},"message":${messageJson}}`
}

// Parses one client frame. Anything that is not a well-formed command comes back as the
// reason it was refused, for the log; the connection decides what to do about it.
export function parseCommand(text: string): Command | string {
  let frame: unknown
  try {
    frame = JSON.parse(text)
  } catch {
    return 'not JSON'
  }
  if (!isObject(frame)) return 'not a JSON object'
  const { command, identifier } = frame
  if (typeof identifier !== 'string' || identifier === '') return 'identifier is not a non-empty string'
  if (command === 'subscribe' || command === 'unsubscribe') return { command, identifier }
  if (command !== 'message') return `unknown command ${JSON.stringify(command)}`
  if (typeof frame.data !== 'string') return 'message data is not a string'
  try {
    return { command, identifier, data: JSON.parse(frame.data) }
  } catch {
    return 'message data is not JSON'
  }
}

// The identifier is itself JSON naming the channel and its params. It is kept verbatim:
// the same string keys the subscription and is echoed in every frame for it.
export function parseIdentifier(identifier: string): { channel: string; params: Record<string, unknown> } | null {
  let params: unknown
  try {
    params = JSON.parse(identifier)
  } catch {
    return null
  }
  if (!isObject(params) || typeof params.channel !== 'string') return null
  return { channel: params.channel, params }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
