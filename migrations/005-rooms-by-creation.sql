-- Room.original (the first room created, which shows the invitation) is read on every room page:
-- an index makes it one step instead of a scan and sort of every room. Additive; Rails ignores it.
CREATE INDEX IF NOT EXISTS campfire_index_rooms_on_created_at_and_id ON rooms (created_at, id);
