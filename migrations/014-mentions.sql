-- The mentions inbox (server/models/user/mentions.ts): who each message mentions, so a person's
-- mentions are read newest first off one index instead of every body they can reach.
--
-- A mention is an attachment in the message's rich text whose signed global id verifies as a User.
-- SQLite cannot check a signature, so the triggers do not read bodies: a write that can change a
-- message's mentions (its body inserted, changed or moved, its created_at or room changed) puts
-- the message on campfire_mention_checks, and the server reads its body again, fills
-- campfire_mentions and takes it off, in the same transaction as its own posts and edits, and
-- before it answers an inbox when another writer (Rails, a sqlite3 shell) left checks behind.
-- A body that is deleted, or a message, takes its mentions with it at once.
--
-- The checks table has no unique key, so no conflict policy of an outer statement can make its
-- INSERT fail or be skipped. Only bodies holding an sgid are put on it. Additive; Rails ignores
-- both tables.

CREATE TABLE IF NOT EXISTS campfire_mentions (
  user_id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  message_id INTEGER NOT NULL,
  room_id INTEGER NOT NULL,
  PRIMARY KEY (user_id, created_at, message_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS campfire_mentions_by_message ON campfire_mentions (message_id);

CREATE TABLE IF NOT EXISTS campfire_mention_checks (id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL);

CREATE TRIGGER campfire_mentions_body_inserted AFTER INSERT ON action_text_rich_texts
  WHEN NEW.record_type = 'Message' AND NEW.body LIKE '%sgid%'
BEGIN
  INSERT INTO campfire_mention_checks (message_id) VALUES (NEW.record_id);
END;

CREATE TRIGGER campfire_mentions_body_updated AFTER UPDATE ON action_text_rich_texts
  WHEN (OLD.record_type = 'Message' AND OLD.body LIKE '%sgid%') OR (NEW.record_type = 'Message' AND NEW.body LIKE '%sgid%')
    OR (OLD.record_type = 'Message' AND OLD.record_id IS NOT NEW.record_id)
BEGIN
  INSERT INTO campfire_mention_checks (message_id) SELECT OLD.record_id WHERE OLD.record_type = 'Message';
  INSERT INTO campfire_mention_checks (message_id) SELECT NEW.record_id WHERE NEW.record_type = 'Message';
END;

CREATE TRIGGER campfire_mentions_body_deleted AFTER DELETE ON action_text_rich_texts WHEN OLD.record_type = 'Message'
BEGIN
  DELETE FROM campfire_mentions WHERE message_id = OLD.record_id;
END;

CREATE TRIGGER campfire_mentions_message_moved AFTER UPDATE OF id, created_at, room_id ON messages
  WHEN OLD.id IS NOT NEW.id OR OLD.created_at IS NOT NEW.created_at OR OLD.room_id IS NOT NEW.room_id
BEGIN
  DELETE FROM campfire_mentions WHERE message_id = OLD.id;
  INSERT INTO campfire_mention_checks (message_id) VALUES (NEW.id);
END;

CREATE TRIGGER campfire_mentions_message_deleted AFTER DELETE ON messages
BEGIN
  DELETE FROM campfire_mentions WHERE message_id = OLD.id;
END;

-- The backfill, once: every message written before this migration whose body holds an sgid is
-- checked when the server boots (server/plugins/mentions.ts).
INSERT INTO campfire_mention_checks (message_id)
  SELECT record_id FROM action_text_rich_texts WHERE record_type = 'Message' AND body LIKE '%sgid%' ORDER BY record_id;
