-- 001-initial-schema.sql
--
-- The database exactly as upstream Rails creates it on a fresh file with
-- `bin/rails db:prepare` (which, for an empty database, loads db/schema.rb):
--
--   upstream  basecamp/once-campfire, db/schema.rb version 2025_12_12_154340
--             (byte-identical at 9310b00 and, per its SHA1, at the seed revision 90b3300)
--   Rails     rails/rails 1a02651ac37fb64b4de2a2b73461d86acf9c98fb (8.2.0.alpha),
--             activerecord SQLite3 adapter
--
-- Every statement below reproduces the SQL text Rails sends, so that the
-- `sql` column of sqlite_master is byte-for-byte what Rails stores (SQLite itself
-- drops "IF NOT EXISTS" before storing, so the virtual table matches as well).
-- The statements come in the order Rails runs them, which gives the same
-- sqlite_master order:
--
--   1. create_table for every table, in schema.rb order (alphabetical), each table
--      followed by its indexes. Columns are in schema.rb order ("id" first, then
--      alphabetical, because the Rails 8.1+ schema dumper sorts columns).
--   2. add_foreign_key. On SQLite this rebuilds the table (alter_table: copy into a
--      TEMPORARY "a<table>", drop, copy back with the constraint, re-add the indexes).
--      So the tables that get a foreign key end up *after* the others in
--      sqlite_master, with the constraint inline as
--        CONSTRAINT "fk_rails_<first 10 hex of SHA256("<table>_<column>_fk")>"
--        FOREIGN KEY ("col")
--          REFERENCES "table" ("id")
--      including the newlines of Rails' heredoc. messages gets two add_foreign_key
--      calls: the first constraint (rooms) is carried over by the second rebuild and
--      the new one (users) is appended after it. Here each table is created once,
--      directly in its final form and position.
--   3. create_virtual_table (FTS5, which creates its shadow tables itself).
--   4. ActiveRecord::Schema.define: schema_migrations, assume_migrated_upto_version,
--      then ar_internal_metadata (environment). Then DatabaseTasks#load_schema
--      adds schema_sha1 = SHA1 of db/schema.rb.
--
-- sqlite_sequence is created by SQLite with the first AUTOINCREMENT table (accounts).
-- The temporary tables and indexes of the rebuilds ("abans", "tindex_...") live in the
-- temp schema and leave no trace.
--
-- Not in this file (connection settings rather than schema): Rails opens every
-- connection with PRAGMA foreign_keys = ON, journal_mode = WAL, synchronous = NORMAL,
-- mmap_size = 134217728, journal_size_limit = 67108864, cache_size = 2000.
-- journal_mode = WAL is persisted in the file header by the first connection that
-- sets it, and it cannot be switched inside a transaction, so the runner must
-- set it. user_version stays 0 (Rails never sets it).
--
-- No BEGIN/COMMIT (the runner wraps this file) and no IF NOT EXISTS (the runner decides
-- whether to apply it). Comments here avoid semicolons on purpose.

CREATE TABLE "accounts" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "created_at" datetime(6) NOT NULL, "custom_styles" text, "join_code" varchar NOT NULL, "name" varchar NOT NULL, "settings" json, "singleton_guard" integer DEFAULT 0 NOT NULL, "updated_at" datetime(6) NOT NULL);
CREATE UNIQUE INDEX "index_accounts_on_singleton_guard" ON "accounts" ("singleton_guard");

CREATE TABLE "action_text_rich_texts" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "body" text, "created_at" datetime(6) NOT NULL, "name" varchar NOT NULL, "record_id" bigint NOT NULL, "record_type" varchar NOT NULL, "updated_at" datetime(6) NOT NULL);
CREATE UNIQUE INDEX "index_action_text_rich_texts_uniqueness" ON "action_text_rich_texts" ("record_type", "record_id", "name");

CREATE TABLE "active_storage_blobs" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "byte_size" bigint NOT NULL, "checksum" varchar, "content_type" varchar, "created_at" datetime(6) NOT NULL, "filename" varchar NOT NULL, "key" varchar NOT NULL, "metadata" text, "service_name" varchar NOT NULL);
CREATE UNIQUE INDEX "index_active_storage_blobs_on_key" ON "active_storage_blobs" ("key");

CREATE TABLE "memberships" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "connected_at" datetime(6), "connections" integer DEFAULT 0 NOT NULL, "created_at" datetime(6) NOT NULL, "involvement" varchar DEFAULT 'mentions', "room_id" integer NOT NULL, "unread_at" datetime(6), "updated_at" datetime(6) NOT NULL, "user_id" integer NOT NULL);
CREATE INDEX "index_memberships_on_room_id_and_created_at" ON "memberships" ("room_id", "created_at");
CREATE UNIQUE INDEX "index_memberships_on_room_id_and_user_id" ON "memberships" ("room_id", "user_id");
CREATE INDEX "index_memberships_on_room_id" ON "memberships" ("room_id");
CREATE INDEX "index_memberships_on_user_id" ON "memberships" ("user_id");

CREATE TABLE "rooms" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "created_at" datetime(6) NOT NULL, "creator_id" bigint NOT NULL, "name" varchar, "type" varchar NOT NULL, "updated_at" datetime(6) NOT NULL);

CREATE TABLE "users" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "bio" text, "bot_token" varchar, "created_at" datetime(6) NOT NULL, "email_address" varchar, "name" varchar NOT NULL, "password_digest" varchar, "role" integer DEFAULT 0 NOT NULL, "status" integer DEFAULT 0 NOT NULL, "updated_at" datetime(6) NOT NULL);
CREATE UNIQUE INDEX "index_users_on_bot_token" ON "users" ("bot_token");
CREATE UNIQUE INDEX "index_users_on_email_address" ON "users" ("email_address");

-- Tables rebuilt by add_foreign_key, in schema.rb's add_foreign_key order.

CREATE TABLE "active_storage_attachments" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "blob_id" bigint NOT NULL, "created_at" datetime(6) NOT NULL, "name" varchar NOT NULL, "record_id" bigint NOT NULL, "record_type" varchar NOT NULL, CONSTRAINT "fk_rails_c3b3935057"
FOREIGN KEY ("blob_id")
  REFERENCES "active_storage_blobs" ("id")
);
CREATE INDEX "index_active_storage_attachments_on_blob_id" ON "active_storage_attachments" ("blob_id");
CREATE UNIQUE INDEX "index_active_storage_attachments_uniqueness" ON "active_storage_attachments" ("record_type", "record_id", "name", "blob_id");

CREATE TABLE "active_storage_variant_records" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "blob_id" bigint NOT NULL, "variation_digest" varchar NOT NULL, CONSTRAINT "fk_rails_993965df05"
FOREIGN KEY ("blob_id")
  REFERENCES "active_storage_blobs" ("id")
);
CREATE UNIQUE INDEX "index_active_storage_variant_records_uniqueness" ON "active_storage_variant_records" ("blob_id", "variation_digest");

CREATE TABLE "bans" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "created_at" datetime(6) NOT NULL, "ip_address" varchar NOT NULL, "updated_at" datetime(6) NOT NULL, "user_id" integer NOT NULL, CONSTRAINT "fk_rails_070022cd76"
FOREIGN KEY ("user_id")
  REFERENCES "users" ("id")
);
CREATE INDEX "index_bans_on_ip_address" ON "bans" ("ip_address");
CREATE INDEX "index_bans_on_user_id" ON "bans" ("user_id");

CREATE TABLE "boosts" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "booster_id" integer NOT NULL, "content" varchar(16) NOT NULL, "created_at" datetime(6) NOT NULL, "message_id" integer NOT NULL, "updated_at" datetime(6) NOT NULL, CONSTRAINT "fk_rails_3539c52d73"
FOREIGN KEY ("message_id")
  REFERENCES "messages" ("id")
);
CREATE INDEX "index_boosts_on_booster_id" ON "boosts" ("booster_id");
CREATE INDEX "index_boosts_on_message_id" ON "boosts" ("message_id");

CREATE TABLE "messages" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "client_message_id" varchar NOT NULL, "created_at" datetime(6) NOT NULL, "creator_id" integer NOT NULL, "room_id" integer NOT NULL, "updated_at" datetime(6) NOT NULL, CONSTRAINT "fk_rails_a8db0fb63a"
FOREIGN KEY ("room_id")
  REFERENCES "rooms" ("id")
, CONSTRAINT "fk_rails_761a2f12b3"
FOREIGN KEY ("creator_id")
  REFERENCES "users" ("id")
);
CREATE INDEX "index_messages_on_creator_id" ON "messages" ("creator_id");
CREATE INDEX "index_messages_on_room_id" ON "messages" ("room_id");

CREATE TABLE "push_subscriptions" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "auth_key" varchar, "created_at" datetime(6) NOT NULL, "endpoint" varchar, "p256dh_key" varchar, "updated_at" datetime(6) NOT NULL, "user_agent" varchar, "user_id" integer NOT NULL, CONSTRAINT "fk_rails_43d43720fc"
FOREIGN KEY ("user_id")
  REFERENCES "users" ("id")
);
CREATE INDEX "idx_on_endpoint_p256dh_key_auth_key_7553014576" ON "push_subscriptions" ("endpoint", "p256dh_key", "auth_key");
CREATE INDEX "index_push_subscriptions_on_user_id" ON "push_subscriptions" ("user_id");

CREATE TABLE "searches" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "created_at" datetime(6) NOT NULL, "query" varchar NOT NULL, "updated_at" datetime(6) NOT NULL, "user_id" integer NOT NULL, CONSTRAINT "fk_rails_e192b86393"
FOREIGN KEY ("user_id")
  REFERENCES "users" ("id")
);
CREATE INDEX "index_searches_on_user_id" ON "searches" ("user_id");

CREATE TABLE "sessions" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "created_at" datetime(6) NOT NULL, "ip_address" varchar, "last_active_at" datetime(6) NOT NULL, "token" varchar NOT NULL, "updated_at" datetime(6) NOT NULL, "user_agent" varchar, "user_id" integer NOT NULL, CONSTRAINT "fk_rails_758836b4f0"
FOREIGN KEY ("user_id")
  REFERENCES "users" ("id")
);
CREATE UNIQUE INDEX "index_sessions_on_token" ON "sessions" ("token");
CREATE INDEX "index_sessions_on_user_id" ON "sessions" ("user_id");

CREATE TABLE "webhooks" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "created_at" datetime(6) NOT NULL, "updated_at" datetime(6) NOT NULL, "url" varchar, "user_id" integer NOT NULL, CONSTRAINT "fk_rails_51bf96d3bc"
FOREIGN KEY ("user_id")
  REFERENCES "users" ("id")
);
CREATE INDEX "index_webhooks_on_user_id" ON "webhooks" ("user_id");

-- create_virtual_table "message_search_index", "fts5", ["body", "tokenize=porter"]
-- Rails sends: CREATE VIRTUAL TABLE IF NOT EXISTS message_search_index USING fts5 (body, tokenize=porter)
-- (unquoted name, a space before the parenthesis). SQLite stores it without IF NOT EXISTS.
-- rowid = messages.id, and the application keeps the index up to date (there are no triggers).
CREATE VIRTUAL TABLE message_search_index USING fts5 (body, tokenize=porter);

-- ActiveRecord::Schema.define, after the block has run
CREATE TABLE "schema_migrations" ("version" varchar NOT NULL PRIMARY KEY);

-- assume_migrated_upto_version(20251212154340): first the schema version itself, then
-- every other version found in db/migrate, in one statement, newest first
-- (DefaultSchemaVersionsFormatter reverses the list). The values are integer literals,
-- and the column's TEXT affinity stores them as text.
INSERT INTO "schema_migrations" (version) VALUES (20251212154340);
INSERT INTO "schema_migrations" (version) VALUES
(20251126130131),
(20251126115722),
(20251126092013),
(20250825100959),
(20250825100958),
(20250825100957),
(20240209110503),
(20240131105830),
(20240130213001),
(20240130003150),
(20240115124901),
(20240110071740),
(20231220143106),
(20231215043540);

CREATE TABLE "ar_internal_metadata" ("key" varchar NOT NULL PRIMARY KEY, "value" varchar, "created_at" datetime(6) NOT NULL, "updated_at" datetime(6) NOT NULL);

-- Rails writes Time.now.utc here (quoted_date: "YYYY-MM-DD HH:MM:SS", plus ".ffffff" only
-- when the microseconds are not zero). A fixed timestamp with zero microseconds keeps this
-- file deterministic, and this is how Rails itself would write that instant. The runner
-- may UPDATE these rows with the real time and environment name.
-- environment: written by Schema.define (and re-asserted, unchanged, by every migrate).
INSERT INTO "ar_internal_metadata" ("key", "value", "created_at", "updated_at") VALUES ('environment', 'production', '2026-01-01 00:00:00', '2026-01-01 00:00:00');
-- schema_sha1: DatabaseTasks#load_schema writes the SHA1 of db/schema.rb's bytes.
INSERT INTO "ar_internal_metadata" ("key", "value", "created_at", "updated_at") VALUES ('schema_sha1', 'f75da8dad38bfb179ffd757bd7a7c2b3f818bc29', '2026-01-01 00:00:00', '2026-01-01 00:00:00');
