import { Channel } from '../channel.ts'

// Streams nothing: it exists so the client hears `connected` and `disconnected`, which drive
// the room's catch-up refresh and the composer's offline mode.
export class HeartbeatChannel extends Channel {}
