-- Email about mentions and Pings people miss (server/plugins/email.ts). Additive; Rails ignores
-- both tables.
--
-- One row per person and message still to be emailed. A person's rows share one due_at (the
-- first one's, plus the delay), so what arrives while one is pending joins the same email.
-- claimed_until is the sending process's lease; attempts counts temporary SMTP failures.
-- Times are milliseconds since the epoch.
CREATE TABLE IF NOT EXISTS campfire_email_notifications (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL,
  message_id INTEGER NOT NULL,
  room_id INTEGER NOT NULL,
  origin TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  due_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  claimed_until INTEGER,
  UNIQUE (user_id, message_id)
);
CREATE INDEX IF NOT EXISTS campfire_email_notifications_due ON campfire_email_notifications (due_at, user_id);

-- "Email me about mentions and Pings I miss": on unless a row says off.
CREATE TABLE IF NOT EXISTS campfire_email_preferences (
  user_id INTEGER PRIMARY KEY,
  missed_messages INTEGER NOT NULL,
  updated_at TEXT NOT NULL
) WITHOUT ROWID;
