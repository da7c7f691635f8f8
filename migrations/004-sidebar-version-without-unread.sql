-- users.sidebar_version no longer moves when a room becomes unread or read. The sidebar page is
-- cached without its unread marks, and each request fills them in from memberships.unread_at
-- (server/rendering/unread-slots.ts), so reading a room or a post elsewhere no longer throws the
-- person's cached sidebar away. Joining, leaving, involvement, names and order still move it.

DROP TRIGGER campfire_membership_updated;

CREATE TRIGGER campfire_membership_updated AFTER UPDATE OF room_id, user_id, involvement ON memberships
  WHEN OLD.room_id IS NOT NEW.room_id OR OLD.user_id IS NOT NEW.user_id OR OLD.involvement IS NOT NEW.involvement
BEGIN
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE users SET sidebar_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE id IN (OLD.user_id, NEW.user_id);
END;
