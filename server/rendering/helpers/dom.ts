// Rails dom_id: "<prefix>_<param key>_<id>". Rooms use their STI param key ("rooms_open"),
// and messages their client_message_id (Message#to_key).
const ROOM_KEYS: Record<string, string> = { 'Rooms::Open': 'rooms_open', 'Rooms::Closed': 'rooms_closed', 'Rooms::Direct': 'rooms_direct' }

export function roomKey(type: string): string {
  return ROOM_KEYS[type] ?? 'room'
}

export function roomDomId(room: { id: number; type: string }, prefix?: string): string {
  const id = `${roomKey(room.type)}_${room.id}`
  return prefix ? `${prefix}_${id}` : id
}

export function messageDomId(message: { client_message_id: string }, prefix?: string): string {
  return prefix ? `${prefix}_message_${message.client_message_id}` : `message_${message.client_message_id}`
}

export function boostDomId(boost: { id: number }): string {
  return `boost_${boost.id}`
}
