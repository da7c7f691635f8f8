-- With WEB_CONCURRENCY > 1, each worker's share of memberships.connections: written in the same
-- transaction as the count it adds to, so when a worker is killed its supervisor takes away
-- exactly what it held. Additive; Rails ignores it, and one process never writes it.
CREATE TABLE IF NOT EXISTS campfire_worker_connections (
  worker INTEGER NOT NULL,
  room_id INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  connections INTEGER NOT NULL,
  PRIMARY KEY (worker, room_id, user_id)
) WITHOUT ROWID;
