-- Room pages, history pages and the refresh endpoint read one page of a room's messages in
-- created_at or updated_at order; these indexes let them read only that page.
-- Additive only: Rails keeps reading the database as before.
CREATE INDEX IF NOT EXISTS "index_messages_on_room_id_and_created_at" ON "messages" ("room_id", "created_at");
CREATE INDEX IF NOT EXISTS "index_messages_on_room_id_and_updated_at" ON "messages" ("room_id", "updated_at");
