-- Versions that the caches key on, kept by SQLite triggers so that every writer moves them:
-- this process, Rails, or a `sqlite3` shell.
--
--   messages.presentation_version  moves whenever anything a message fragment shows changes:
--                                  the message, its rich text, its attachment, its boosts, its
--                                  creator's or a booster's name or avatar, the room's name (for a
--                                  direct room: its members' names).
--   rooms.content_version          moves whenever a message of the room appears, disappears or
--                                  moves its presentation_version.
--   users.sidebar_version          moves whenever that person's sidebar changes: their memberships
--                                  (joining, leaving, unread or not, invisible or not), the names and
--                                  order of their rooms, the members of their direct rooms.
--   campfire_cache_versions        'counter' is the one counter every trigger shares: it only ever
--                                  increases and is never reset, so a version never comes back.
--                                  'people' moves with any person (placeholders, avatars and names
--                                  in sidebars), 'account' with the account (custom styles, join code,
--                                  settings).
--
-- Presence (memberships.connections, connected_at and the updated_at they touch) moves nothing.
--
-- Every trigger statement is an UPDATE of rows that already exist, never an INSERT: the conflict
-- policy of an outer INSERT OR REPLACE / OR IGNORE applies to every statement inside the triggers it
-- fires, and an INSERT that is IGNOREd there would silently not move a version.
--
-- Additive only: new columns with defaults, one new table and triggers; Rails keeps working.

CREATE TABLE campfire_cache_versions (name varchar PRIMARY KEY NOT NULL, value integer NOT NULL);
INSERT INTO campfire_cache_versions (name, value) VALUES ('counter', 1), ('people', 1), ('account', 1);

ALTER TABLE messages ADD COLUMN presentation_version integer DEFAULT 0 NOT NULL;
ALTER TABLE rooms ADD COLUMN content_version integer DEFAULT 0 NOT NULL;
ALTER TABLE users ADD COLUMN sidebar_version integer DEFAULT 0 NOT NULL;

UPDATE messages SET presentation_version = 1;
UPDATE rooms SET content_version = 1;
UPDATE users SET sidebar_version = 1;

-- A message moving its version moves its room.
CREATE TRIGGER campfire_message_version_moves_room AFTER UPDATE OF presentation_version ON messages
BEGIN
  UPDATE rooms SET content_version = NEW.presentation_version WHERE id IN (OLD.room_id, NEW.room_id);
END;

-- Messages

CREATE TRIGGER campfire_message_inserted AFTER INSERT ON messages
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE id = NEW.id;
END;

CREATE TRIGGER campfire_message_updated AFTER UPDATE OF id, client_message_id, created_at, creator_id, room_id, updated_at ON messages
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE id = NEW.id;
END;

CREATE TRIGGER campfire_message_deleted AFTER DELETE ON messages
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE rooms SET content_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE id = OLD.room_id;
END;

-- Rich text (message bodies)

CREATE TRIGGER campfire_rich_text_inserted AFTER INSERT ON action_text_rich_texts WHEN NEW.record_type = 'Message'
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE id = NEW.record_id;
END;

CREATE TRIGGER campfire_rich_text_updated AFTER UPDATE ON action_text_rich_texts WHEN NEW.record_type = 'Message' OR OLD.record_type = 'Message'
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE id IN (OLD.record_id, NEW.record_id);
END;

CREATE TRIGGER campfire_rich_text_deleted AFTER DELETE ON action_text_rich_texts WHEN OLD.record_type = 'Message'
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE id = OLD.record_id;
END;

-- Boosts

CREATE TRIGGER campfire_boost_inserted AFTER INSERT ON boosts
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE id = NEW.message_id;
END;

CREATE TRIGGER campfire_boost_updated AFTER UPDATE ON boosts
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE id IN (OLD.message_id, NEW.message_id);
END;

CREATE TRIGGER campfire_boost_deleted AFTER DELETE ON boosts
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE id = OLD.message_id;
END;

-- Attachments: a message's file, or a person's avatar.

CREATE TRIGGER campfire_attachment_inserted AFTER INSERT ON active_storage_attachments WHEN NEW.record_type IN ('Message', 'User')
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter')
    WHERE NEW.record_type = 'Message' AND id = NEW.record_id;
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter')
    WHERE NEW.record_type = 'User' AND creator_id = NEW.record_id;
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter')
    WHERE NEW.record_type = 'User' AND id IN (SELECT message_id FROM boosts WHERE booster_id = NEW.record_id);
  UPDATE campfire_cache_versions SET value = (SELECT value FROM campfire_cache_versions WHERE name = 'counter')
    WHERE NEW.record_type = 'User' AND name = 'people';
END;

CREATE TRIGGER campfire_attachment_deleted AFTER DELETE ON active_storage_attachments WHEN OLD.record_type IN ('Message', 'User')
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter')
    WHERE OLD.record_type = 'Message' AND id = OLD.record_id;
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter')
    WHERE OLD.record_type = 'User' AND creator_id = OLD.record_id;
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter')
    WHERE OLD.record_type = 'User' AND id IN (SELECT message_id FROM boosts WHERE booster_id = OLD.record_id);
  UPDATE campfire_cache_versions SET value = (SELECT value FROM campfire_cache_versions WHERE name = 'counter')
    WHERE OLD.record_type = 'User' AND name = 'people';
END;

CREATE TRIGGER campfire_blob_updated AFTER UPDATE ON active_storage_blobs
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter')
    WHERE id IN (SELECT record_id FROM active_storage_attachments WHERE blob_id = NEW.id AND record_type = 'Message');
END;

-- People: a creator's or booster's name, bio or avatar (its URL carries updated_at), and the
-- names of direct rooms they are in. Any change to a person also moves 'people'.

CREATE TRIGGER campfire_user_presentation_updated AFTER UPDATE OF name, bio, updated_at ON users
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE creator_id = NEW.id;
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter')
    WHERE id IN (SELECT message_id FROM boosts WHERE booster_id = NEW.id);
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter')
    WHERE room_id IN (SELECT memberships.room_id FROM memberships JOIN rooms ON rooms.id = memberships.room_id
                      WHERE memberships.user_id = NEW.id AND rooms.type = 'Rooms::Direct');
  UPDATE campfire_cache_versions SET value = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE name = 'people';
END;

CREATE TRIGGER campfire_user_standing_updated AFTER UPDATE OF id, status, role, email_address, created_at ON users
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE campfire_cache_versions SET value = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE name = 'people';
END;

CREATE TRIGGER campfire_user_inserted AFTER INSERT ON users
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE campfire_cache_versions SET value = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE name = 'people';
END;

CREATE TRIGGER campfire_user_deleted AFTER DELETE ON users
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE creator_id = OLD.id;
  UPDATE campfire_cache_versions SET value = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE name = 'people';
END;

-- Rooms: a name shows in every message fragment and in members' sidebars; the order of
-- direct rooms in a sidebar follows their updated_at.

CREATE TRIGGER campfire_room_renamed AFTER UPDATE OF id, name, type ON rooms
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE room_id = NEW.id;
  UPDATE users SET sidebar_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter')
    WHERE id IN (SELECT user_id FROM memberships WHERE room_id = NEW.id);
END;

CREATE TRIGGER campfire_direct_room_touched AFTER UPDATE OF updated_at ON rooms WHEN NEW.type = 'Rooms::Direct'
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE users SET sidebar_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter')
    WHERE id IN (SELECT user_id FROM memberships WHERE room_id = NEW.id);
END;

-- Memberships: joining and leaving move the person's sidebar; in a direct room they also move
-- the other members' sidebars and the room's name in its messages. Of an update, only what a
-- sidebar shows counts: unread or not, and the involvement (invisible rooms are left out).

CREATE TRIGGER campfire_membership_inserted AFTER INSERT ON memberships
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE users SET sidebar_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter')
    WHERE id = NEW.user_id
       OR id IN (SELECT user_id FROM memberships WHERE room_id = NEW.room_id
                 AND EXISTS (SELECT 1 FROM rooms WHERE id = NEW.room_id AND type = 'Rooms::Direct'));
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter')
    WHERE room_id = NEW.room_id AND EXISTS (SELECT 1 FROM rooms WHERE id = NEW.room_id AND type = 'Rooms::Direct');
END;

CREATE TRIGGER campfire_membership_deleted AFTER DELETE ON memberships
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE users SET sidebar_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter')
    WHERE id = OLD.user_id
       OR id IN (SELECT user_id FROM memberships WHERE room_id = OLD.room_id
                 AND EXISTS (SELECT 1 FROM rooms WHERE id = OLD.room_id AND type = 'Rooms::Direct'));
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter')
    WHERE room_id = OLD.room_id AND EXISTS (SELECT 1 FROM rooms WHERE id = OLD.room_id AND type = 'Rooms::Direct');
END;

CREATE TRIGGER campfire_membership_updated AFTER UPDATE OF room_id, user_id, unread_at, involvement ON memberships
  WHEN OLD.room_id IS NOT NEW.room_id OR OLD.user_id IS NOT NEW.user_id
    OR (OLD.unread_at IS NULL) != (NEW.unread_at IS NULL) OR OLD.involvement IS NOT NEW.involvement
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE users SET sidebar_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE id IN (OLD.user_id, NEW.user_id);
END;

-- The account: custom styles and the join code show on pages, settings decide the sidebar's
-- new-room button.

CREATE TRIGGER campfire_account_inserted AFTER INSERT ON accounts
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE campfire_cache_versions SET value = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE name = 'account';
END;

CREATE TRIGGER campfire_account_updated AFTER UPDATE ON accounts
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE campfire_cache_versions SET value = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE name = 'account';
END;
