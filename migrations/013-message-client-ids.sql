-- A post is idempotent per person and client_message_id: the composer sends a message again when
-- the connection comes back, and a retry whose first try did arrive must find that message instead
-- of writing a second one (server/models/message/posting.ts). A unique index holds it.
--
-- A database may already hold repeats (two rows of one person with one client_message_id). They
-- are kept as they are: campfire_repeat_of is 0 for every message but those older repeats, which
-- hold their own id, so the index takes them without changing any of upstream's values. Additive;
-- Rails ignores the column and the index. A row Rails inserts gets 0.
ALTER TABLE messages ADD COLUMN campfire_repeat_of INTEGER NOT NULL DEFAULT 0;
UPDATE messages SET campfire_repeat_of = id
  WHERE id NOT IN (SELECT min(id) FROM messages GROUP BY creator_id, client_message_id);
CREATE UNIQUE INDEX IF NOT EXISTS campfire_index_messages_on_creator_and_client_message_id
  ON messages (creator_id, client_message_id, campfire_repeat_of);
