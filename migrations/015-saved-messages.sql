-- Saved messages and "mark as unread" (docs/features.md). Additive; Rails ignores the table, its
-- triggers and the column.
--
-- A person's saved messages: one row per person and message, newest saved first by id. Nobody but
-- the person reads them (server/models/saved-message.ts). A row goes when its message is deleted,
-- when the person leaves the message's room, and when the person is deleted: the triggers below
-- keep that true for every writer (this process, Rails, or a `sqlite3` shell).
CREATE TABLE IF NOT EXISTS campfire_saved_messages (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL,
  message_id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (user_id, message_id)
);
CREATE INDEX IF NOT EXISTS campfire_index_saved_messages_on_message_id ON campfire_saved_messages (message_id);

CREATE TRIGGER campfire_saved_message_goes_with_its_message AFTER DELETE ON messages
BEGIN
  DELETE FROM campfire_saved_messages WHERE message_id = OLD.id;
END;

CREATE TRIGGER campfire_saved_message_goes_with_the_membership AFTER DELETE ON memberships
BEGIN
  DELETE FROM campfire_saved_messages WHERE user_id = OLD.user_id
    AND message_id IN (SELECT id FROM messages WHERE room_id = OLD.room_id);
END;

CREATE TRIGGER campfire_saved_message_goes_with_its_person AFTER DELETE ON users
BEGIN
  DELETE FROM campfire_saved_messages WHERE user_id = OLD.id;
END;

-- The message a person marked unread from, on their membership. The room opens at it while the
-- room is still unread from that very message (unread_at is its created_at): reading the room
-- anywhere clears unread_at, and a later unread starts at a later message, so a mark that no
-- longer holds is never taken for one that does, whoever cleared it.
ALTER TABLE memberships ADD COLUMN campfire_unread_message_id INTEGER;
