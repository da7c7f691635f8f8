-- What a Slack import has brought in, by Slack's own keys: a person (their Slack user or bot
-- id), a conversation (its channel id) and a message (its conversation id and ts, with a file's
-- id for each file it shared), each with the row it became. A message's key is written in the
-- same transaction as the message, so running the import again (or after it was interrupted)
-- adds only what is not here yet. Not a Rails table: Rails never reads it.
CREATE TABLE slack_import_records (
  kind TEXT NOT NULL CHECK (kind IN ('user', 'room', 'message')),
  slack_key TEXT NOT NULL,
  record_id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (kind, slack_key)
) WITHOUT ROWID;
