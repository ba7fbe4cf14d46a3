// Test helper (not a test): turns a store's snapshot back into the schema an earlier release wrote — the
// objects that version creates, with their shipped definitions (tables a later version rebuilt are rebuilt
// back, keeping every row), VACUUMed as that release's compaction left it, version N in meta and user_version.
// The journal is left as it is (records on top of the snapshot replay after the migration).
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import initSqlJs, { type Database } from 'sql.js';
import { SNAPSHOT_FILE } from '../../../src/engine/store/store';
import { MIGRATIONS } from '../../../src/engine/store/schema';

type Obj = { type: string; name: string; sql: string };

function objects(db: Database): Obj[] {
  const rows = db.exec("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND sql IS NOT NULL")[0]?.values ?? [];
  return rows.map(([type, name, sql]) => ({ type: String(type), name: String(name), sql: String(sql) }));
}

export async function downgradeTo(storeDir: string, version: number): Promise<void> {
  const SQL = await initSqlJs();
  const file = path.join(storeDir, SNAPSHOT_FILE);
  const db = new SQL.Database(readFileSync(file));
  const ref = new SQL.Database();
  for (const m of MIGRATIONS.slice(0, version)) for (const stmt of m.up) ref.exec(stmt);
  const want = objects(ref);
  const wanted = new Map(want.map((o) => [o.name, o]));
  // legacy_alter_table: the rename below must not re-check triggers (all are dropped first anyway).
  db.exec('PRAGMA legacy_alter_table = ON; BEGIN');
  const have = objects(db);
  for (const o of have) if (o.type === 'trigger') db.exec(`DROP TRIGGER ${o.name}`);
  for (const o of have) if (o.type === 'index' && wanted.get(o.name)?.sql !== o.sql) db.exec(`DROP INDEX ${o.name}`);
  for (const o of have) {
    if (o.type !== 'table') continue;
    const w = wanted.get(o.name);
    if (!w) db.exec(`DROP TABLE ${o.name}`);
    else if (w.sql !== o.sql) {
      // Rebuilt by a later version: back to the shipped definition, every row kept.
      const cols = (ref.exec(`PRAGMA table_info(${o.name})`)[0]?.values ?? []).map((c) => String(c[1])).join(', ');
      db.exec(`${w.sql.replace(`CREATE TABLE ${o.name} `, `CREATE TABLE ${o.name}_old `)};
        INSERT INTO ${o.name}_old (${cols}) SELECT ${cols} FROM ${o.name}; DROP TABLE ${o.name}; ALTER TABLE ${o.name}_old RENAME TO ${o.name}`);
    }
  }
  const now = new Set(objects(db).map((o) => o.name));
  for (const o of want) if (o.type !== 'table' && !now.has(o.name)) db.exec(o.sql);
  db.exec(`UPDATE meta SET value = '${version}' WHERE key = 'schema_version'; COMMIT; PRAGMA user_version = ${version}; VACUUM`);
  ref.close();
  writeFileSync(file, db.export());
  db.close();
}
