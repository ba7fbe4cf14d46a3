// Test helpers (not a test) for schema migrations: a crashed writer, a store's rows, and `downgradeTo`, which turns a store's snapshot back into the schema an earlier release wrote — the
// objects that version creates, with their shipped definitions (tables a later version rebuilt are rebuilt
// back, keeping every row), VACUUMed as that release's compaction left it, version N in meta and user_version.
// Versions 1–3 addressed a raw-record message by the whole sha256 of its bytes (64 hex; v4 keeps 32): the
// addresses are lengthened back, computed from each message's text. The journal is left as it is
// (`rewriteJournal` turns its records into an older version's; they replay before the migration).
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import initSqlJs, { type Database } from 'sql.js';
import { JOURNAL_FILE, SNAPSHOT_FILE, type Store } from '../../../src/engine/store/store';
import { MIGRATIONS } from '../../../src/engine/store/schema';
import { JOURNAL_HEADER_BYTES, encodeRecord, packPayload, recordJson, scanRecords } from '../../../src/engine/store/journal';
import { contentHash, decompressBatch } from '../../../src/engine/write/rawCodec';

export type Row = Record<string, unknown>;
type Sql = { all(sql: string, params?: unknown[]): Row[] };
/** The store's own read connection (tests only). */
export const storeSql = (s: Store): Sql => (s as unknown as { reader: Sql }).reader;

/** Runs `ops` in a second process on the store and SIGKILLs it once all were acknowledged (records only in the journal). */
export async function crashedChild(storeDir: string, ops: [string, string, ...unknown[]][]): Promise<void> {
  const c: ChildProcess = fork(path.join(__dirname, 'opsChild.js'), [JSON.stringify({ dir: storeDir, ops, stay: true })], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((r) => c.once('exit', () => r()));
  await new Promise<void>((resolve, reject) => c.on('message', (m: { type: string; code?: string }) => (m.type === 'done' ? resolve() : reject(new Error(`child: ${m.code}`)))));
  c.kill('SIGKILL');
  await exited;
}

/** Every row of every table, in a fixed order (the content, whatever the tables' physical shape); not the
 *  snapshot's sequence number in meta (a migration's compaction writes a snapshot, a control's open does not). */
export function dumpStore(s: Store): Record<string, Row[]> {
  const sql = storeSql(s);
  const out: Record<string, Row[]> = {};
  for (const { name } of sql.all("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")) {
    const cols = sql.all(`PRAGMA table_info(${String(name)})`).map((c) => String(c.name));
    const rows = sql.all(`SELECT * FROM ${String(name)} ORDER BY ${cols.map((c) => `${c} IS NULL, ${c}`).join(', ')}`);
    out[String(name)] = name === 'meta' ? rows.filter((r) => r.key !== 'snapshot_seq') : rows;
  }
  return out;
}

type Obj = { type: string; name: string; sql: string };

function objects(db: Database): Obj[] {
  const rows = db.exec("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND sql IS NOT NULL")[0]?.values ?? [];
  return rows.map(([type, name, sql]) => ({ type: String(type), name: String(name), sql: String(sql) }));
}

/** Lengthens every content address to the whole sha256 of its message (as versions 1–3 stored it): short → long. */
function lengthenAddresses(db: Database): Map<string, string> {
  const long = new Map<string, string>();
  const chunks = new Map<string, string[]>();
  for (const [hash, chunk, idx] of db.exec('SELECT hash, chunk_id, idx FROM raw_blobs')[0]?.values ?? []) {
    let texts = chunks.get(String(chunk));
    if (!texts) {
      texts = decompressBatch(db.exec('SELECT data FROM raw_chunks WHERE id = ?', [chunk!])[0]!.values[0]![0] as Uint8Array);
      chunks.set(String(chunk), texts);
    }
    const full = contentHash(texts[Number(idx)]!);
    if (!full.startsWith(String(hash))) throw new Error(`downgrade: raw_blobs row ${String(hash)} does not address its text`);
    long.set(String(hash), full);
  }
  for (const [short, full] of long) {
    db.run('UPDATE raw_blobs SET hash = ? WHERE hash = ?', [full, short]);
    db.run('UPDATE items SET blob_hash = ? WHERE blob_hash = ?', [full, short]);
  }
  return long;
}

/** Rewrites the journal's records as `version` wrote them: that version in each record, string parameters mapped. */
export function rewriteJournal(storeDir: string, version: number, mapString: (s: string) => string): number {
  const file = path.join(storeDir, JOURNAL_FILE);
  const buf = readFileSync(file);
  const { records } = scanRecords(buf.subarray(JOURNAL_HEADER_BYTES), JOURNAL_HEADER_BYTES);
  const out: Uint8Array[] = [buf.subarray(0, JOURNAL_HEADER_BYTES)];
  for (const r of records) {
    const p = JSON.parse(recordJson(r)) as { v: number; s: [string, unknown[]][] };
    p.v = version;
    p.s = p.s.map(([q, ps]) => [q, ps.map((x) => (typeof x === 'string' ? mapString(x) : x))]);
    const packed = packPayload(Buffer.from(JSON.stringify(p), 'utf8'), version);
    out.push(encodeRecord(r.seq, packed.version, packed.payload));
  }
  writeFileSync(file, Buffer.concat(out));
  return records.length;
}

/** Returns the content addresses it lengthened (v4's → the older version's). */
export async function downgradeTo(storeDir: string, version: number): Promise<Map<string, string>> {
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
  const long = version < 4 ? lengthenAddresses(db) : new Map<string, string>();
  const now = new Set(objects(db).map((o) => o.name));
  for (const o of want) if (o.type !== 'table' && !now.has(o.name)) db.exec(o.sql);
  db.exec(`UPDATE meta SET value = '${version}' WHERE key = 'schema_version'; COMMIT; PRAGMA user_version = ${version}; VACUUM`);
  ref.close();
  writeFileSync(file, db.export());
  db.close();
  return long;
}
