import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Store } from '../../../server/models/store.ts'
import { SECRET_KEY_BASE, tempStorage } from '../../helper.ts'
import { seedDatabase, type SeedLabels } from '../../load/seed.ts'
import { ROOT } from '../../support/server-process.ts'

export interface SeededStorage {
  storage: string
  labels: SeedLabels
}

// A temporary storage folder laid out as the server keeps it, holding the development seed
// (bcrypt cost 4) and a secret_key_base file, so a server started on it needs no SECRET_KEY_BASE.
export function seededStorage(t: { after: (fn: () => void) => void }): SeededStorage {
  const storage = join(tempStorage(t), 'storage')
  mkdirSync(storage, { recursive: true })
  writeFileSync(join(storage, 'secret_key_base'), SECRET_KEY_BASE + '\n', { mode: 0o600 })
  const store = new Store({ path: join(storage, 'db', 'production.sqlite3'), migrationsDir: join(ROOT, 'migrations') })
  try {
    return { storage, labels: seedDatabase(store, { secretKeyBase: SECRET_KEY_BASE, cost: 4 }) }
  } finally {
    store.close()
  }
}
