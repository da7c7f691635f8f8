import type { Connection } from './connection.ts'

// Where a database that upstream Rails made stands, read from its schema_migrations, and the
// steps of our own that bring an older one to upstream's current schema (db/schema.rb version
// 2025_12_12_154340, which migrations/001-initial-schema.sql reproduces).
//
// Upstream's first public release (basecamp/once-campfire df76a22, db/structure.sql) records
// every migration up to 20240209110503, including 50 from before its db/migrate was squashed
// into 20231215043540. Every version below is upstream's; a database holding any other one is
// from a Campfire we do not know, and is refused.

export const FIRST_RELEASE = '20240209110503'
export const CURRENT = '20251212154340'

const SQUASHED = [
  '20230425104133', '20230425104237', '20230425104254', '20230425130330', '20230425145239', '20230504103837',
  '20230509110019', '20230509110753', '20230509111756', '20230509112001', '20230516102736', '20230525142056',
  '20230526132438', '20230530133902', '20230530141826', '20230607131322', '20230608122228', '20230613125232',
  '20230620092849', '20230622090619', '20230629205414', '20230704101753', '20230711120929', '20230726135144',
  '20230802130519', '20230815121033', '20230816150813', '20230817084502', '20230901135127', '20230927202350',
  '20230928002516', '20230928004135', '20230928012127', '20230929190610', '20230930070541', '20231002121723',
  '20231011155708', '20231011155822', '20231020093252', '20231031091442', '20231113103004', '20231115175300',
  '20231116114233', '20231127103708', '20231128225451', '20231129205116', '20231203020307', '20231203181128',
  '20231203230140', '20231203230519', '20231204195302', '20231204234657', '20231205194643', '20231211162954',
  '20231213193944', '20231214195401',
]

// db/migrate at the first release, all already in its schema.
const FIRST_RELEASE_MIGRATIONS = [
  '20231215043540', '20231220143106', '20240110071740', '20240115124901', '20240130003150', '20240130213001',
  '20240131105830', FIRST_RELEASE,
]

export interface UpstreamStep {
  version: string
  name: string
  apply(db: Connection): void
}

function hasColumn(db: Connection, table: string, column: string): boolean {
  return (db.pragma(`table_info("${table}")`) as { name: string }[]).some((c) => c.name === column)
}

// One step per upstream migration after the first release, in order. Each is the schema change
// that migration makes, as SQL of our own; Rails' text for the new tables, so that Rails reads
// the file as it reads its own.
export const STEPS: readonly UpstreamStep[] = [
  {
    // ActiveStorage's own migration: every Campfire release already had the column.
    version: '20250825100957', name: 'add_service_name_to_active_storage_blobs',
    apply(db) {
      if (!hasColumn(db, 'active_storage_blobs', 'service_name')) {
        db.exec(`ALTER TABLE "active_storage_blobs" ADD "service_name" varchar DEFAULT 'local' NOT NULL`)
      }
    },
  },
  {
    version: '20250825100958', name: 'create_active_storage_variant_records',
    apply(db) {
      db.exec(`CREATE TABLE IF NOT EXISTS "active_storage_variant_records" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "blob_id" bigint NOT NULL, "variation_digest" varchar NOT NULL, CONSTRAINT "fk_rails_993965df05"
FOREIGN KEY ("blob_id")
  REFERENCES "active_storage_blobs" ("id")
);
CREATE UNIQUE INDEX IF NOT EXISTS "index_active_storage_variant_records_uniqueness" ON "active_storage_variant_records" ("blob_id", "variation_digest");`)
    },
  },
  {
    // checksum has been nullable in every Campfire release: nothing to change.
    version: '20250825100959', name: 'remove_not_null_on_active_storage_blobs_checksum',
    apply() {},
  },
  {
    version: '20251126092013', name: 'create_bans',
    apply(db) {
      db.exec(`CREATE TABLE "bans" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "user_id" integer NOT NULL, "ip_address" varchar NOT NULL, "created_at" datetime(6) NOT NULL, "updated_at" datetime(6) NOT NULL, CONSTRAINT "fk_rails_070022cd76"
FOREIGN KEY ("user_id")
  REFERENCES "users" ("id")
);
CREATE INDEX "index_bans_on_user_id" ON "bans" ("user_id");
CREATE INDEX "index_bans_on_ip_address" ON "bans" ("ip_address");`)
    },
  },
  {
    // users.active (true = active) becomes users.status (0 active, 1 deactivated).
    version: '20251126115722', name: 'change_active_to_status_on_users',
    apply(db) {
      db.exec(`ALTER TABLE "users" ADD "status" integer DEFAULT 0 NOT NULL`)
      if (hasColumn(db, 'users', 'active')) {
        db.exec(`UPDATE "users" SET "status" = 1 WHERE "active" = 0`)
        db.exec(`ALTER TABLE "users" DROP COLUMN "active"`)
      }
    },
  },
  {
    version: '20251126130131', name: 'add_account_settings',
    apply(db) {
      db.exec(`ALTER TABLE "accounts" ADD "settings" json`)
    },
  },
  {
    // Fails, as upstream's migration does, on a file holding more than one account.
    version: CURRENT, name: 'add_singleton_constraint_to_accounts',
    apply(db) {
      db.exec(`ALTER TABLE "accounts" ADD "singleton_guard" integer DEFAULT 0 NOT NULL;
CREATE UNIQUE INDEX "index_accounts_on_singleton_guard" ON "accounts" ("singleton_guard");`)
    },
  },
]

const KNOWN = new Set([...SQUASHED, ...FIRST_RELEASE_MIGRATIONS, ...STEPS.map((s) => s.version)])

export class UnknownSchemaError extends Error {}

function tableExists(db: Connection, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined
}

export function recordedVersions(db: Connection): Set<string> {
  return new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all().map(String))
}

// 'fresh' for an empty file; otherwise the upstream steps it lacks. Only reads: a database it
// refuses is left as it was found.
export function pendingSteps(db: Connection): UpstreamStep[] | 'fresh' {
  const hasMigrations = tableExists(db, 'schema_migrations')
  if (!hasMigrations) {
    if (!tableExists(db, 'accounts')) return 'fresh'
    throw new UnknownSchemaError('This database has Campfire tables but no schema_migrations table, so its upstream schema version is unknown. Nothing was changed.')
  }
  const versions = recordedVersions(db)
  const unknown = [...versions].filter((v) => !KNOWN.has(v)).sort()
  if (unknown.length > 0) {
    const newest = unknown.at(-1)!
    const which = newest > CURRENT ? `newer than ${CURRENT}, the newest upstream schema this server knows` : 'not an upstream Campfire migration'
    throw new UnknownSchemaError(`This database is at schema version ${newest}, ${which}. Nothing was changed; run a Campfire that knows it.`)
  }
  if (!versions.has(FIRST_RELEASE)) {
    const newest = [...versions].sort().at(-1) ?? 'none'
    throw new UnknownSchemaError(`This database is at schema version ${newest}, older than ${FIRST_RELEASE} (Campfire's first release), the oldest this server upgrades. Nothing was changed.`)
  }
  return STEPS.filter((s) => !versions.has(s.version))
}

// All steps in one transaction, each step in its own savepoint within it, so that a step that
// fails leaves the file as it was found. Checked again under the write lock (workers booting
// together race), and each recorded in schema_migrations as Rails records a migration it ran.
export function upgradeUpstream(db: Connection, steps: readonly UpstreamStep[]): string[] {
  if (steps.length === 0) return []
  const runStep = db.transaction((step: UpstreamStep) => {
    step.apply(db)
    db.prepare('INSERT INTO schema_migrations (version) VALUES (?)').run(step.version)
  })
  const runAll = db.transaction(() => {
    const applied: string[] = []
    const recorded = recordedVersions(db)
    for (const step of steps) {
      if (recorded.has(step.version)) continue
      try {
        runStep(step)
      } catch (error) {
        throw new UnknownSchemaError(`Upgrading this database to upstream schema version ${step.version} (${step.name}) failed: ${(error as Error).message}. Nothing was changed.`)
      }
      applied.push(`${step.version}-${step.name}`)
    }
    return applied
  })
  return runAll.immediate()
}
