import type { ChannelClass } from '../channel.ts'
import { HeartbeatChannel } from './heartbeat.ts'
import { PresenceChannel } from './presence.ts'
import { ReadRoomsChannel } from './read-rooms.ts'
import { RoomMessagesChannel } from './room-messages.ts'
import { RoomChannel } from './room.ts'
import { TurboStreamsChannel } from './turbo-streams.ts'
import { TypingNotificationsChannel } from './typing-notifications.ts'
import { UnreadRoomsChannel } from './unread-rooms.ts'

// The channels a client may name in its identifier, by their Rails class names.
export const CHANNELS: ReadonlyMap<string, ChannelClass> = new Map<string, ChannelClass>([
  ['RoomChannel', RoomChannel],
  ['PresenceChannel', PresenceChannel],
  ['TypingNotificationsChannel', TypingNotificationsChannel],
  ['RoomMessagesChannel', RoomMessagesChannel],
  ['Turbo::StreamsChannel', TurboStreamsChannel],
  ['UnreadRoomsChannel', UnreadRoomsChannel],
  ['ReadRoomsChannel', ReadRoomsChannel],
  ['HeartbeatChannel', HeartbeatChannel],
])
