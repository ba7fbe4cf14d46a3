// Schema v3 (issue #16, a smaller store): item_sources becomes a WITHOUT ROWID table (each row stored once,
// not in the table and again in its primary key's index) and two indexes on items that no query uses go.
// A store as the previous release wrote it (schema 2, a crashed process's journal records on top that add
// and remove source rows) migrates to v3 with identical content — every row of every table, the dashboard
// and status figures, recall results — the same schema objects as a new store (the rebuilt table's index
// and the v2 triggers recreated verbatim), item_source_stats equal to a recount, and a smaller file.
import assert from 'node:assert/strict';
import { cpSync, readFileSync, statSync } from 'node:fs';
import initSqlJs from 'sql.js';
import * as path from 'node:path';
import { DashboardData } from '../../../src/vscode/dashboard/dashboardData';
import { SNAPSHOT_FILE, type Store } from '../../../src/engine/store/store';
import type { ItemInput } from '../../../src/engine/store/repositories';
import { MemoryEngine } from '../../../src/engine/engine';
import { internals } from '../../../src/engine/internals';
import { createTestEngine, T0, type TestEngine } from '../engine/builders';
import { crashedChild, downgradeTo, dumpStore, storeSql, type Row } from './schemaDowngrade';
import { MIGRATIONS } from '../../../src/engine/store/schema';

const DAY = 86_400_000;
/** Indexes v3 drops: no query uses them. */
const V3_DROPPED = ['items_path'];
const sql = storeSql;

function schemaObjects(s: Store): Row[] {
  return sql(s).all("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name");
}

/** The triggers and indexes schema v2 shipped, verbatim (from its own statements, not from this build's stores). */
async function v2TriggersAndIndexes(): Promise<Row[]> {
  const db = new (await initSqlJs()).Database();
  for (const m of MIGRATIONS.slice(0, 2)) for (const stmt of m.up) db.exec(stmt);
  const r = db.exec("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('trigger', 'index') AND sql IS NOT NULL ORDER BY type, name")[0]!;
  db.close();
  return r.values.map((v) => Object.fromEntries(r.columns.map((c, i) => [c, v[i]])));
}

/** item_source_stats (kept by the triggers on item_sources and items) against a recount from the rows. */
function assertSourceStatsRecount(s: Store): void {
  const kept = sql(s).all('SELECT item_id, sources, last_source_at FROM item_source_stats ORDER BY item_id');
  const recount = sql(s).all(`SELECT s.item_id, count(*) AS sources, max(src.created) AS last_source_at FROM item_sources s LEFT JOIN items src ON src.id = s.source_id
    GROUP BY s.item_id ORDER BY s.item_id`);
  assert.deepEqual(kept, recount, 'item_source_stats = a recount of item_sources');
}

async function answers(e: MemoryEngine): Promise<unknown> {
  await internals(e).index.embedPending();
  const dash = new DashboardData(e, () => ({ includeSecrets: false }));
  const { briefing: _b, consolidationNote: _c, ...overview } = dash.overview();
  const st = e.status();
  const recalls = [];
  for (const message of ['which release train ships the payments service?', 'fact 17 about the build cache', 'who owns the deploy pipeline?']) {
    const r = await e.search(message, {});
    recalls.push(r.map((h) => [h.id, h.score]));
  }
  return {
    overview, tags: dash.tags(), review: dash.review(), recalls,
    card: (({ summariesWithVector, factsWithVector }) => ({ summariesWithVector, factsWithVector }))(dash.engineCard()),
    status: { items: st.items, recallable: st.recallable, invalidatedFacts: st.invalidatedFacts, conversations: st.conversations, rawRecord: st.rawRecord },
  };
}

describe('Schema v3: item_sources WITHOUT ROWID (a v2 store migrates with identical content and gets smaller)', () => {
  let t: TestEngine;
  afterEach(async () => { await t.cleanup(); });

  it('migrates a v2 store with crashed journal records on top: same rows, figures and recalls, same schema as a new store, smaller file', async function () {
    this.timeout(120_000);
    t = await createTestEngine();
    // Raw messages through the real write path (raw_blobs, raw_chunks), facts with 1–8 sources each.
    const msgs = Array.from({ length: 300 }, (_, i) => ({
      conversation: `c${i % 12}`, role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant', at: T0 - (400 - i) * DAY / 4,
      text: `Message ${i}: the payments service ships on release train ${i % 7}; the build cache lives on host ${i % 13} and the deploy pipeline is owned by team ${i % 5}.`,
    }));
    await t.engine.importMessages(msgs);
    await t.engine.flush();
    const raws = internals(t.engine).store.items.list({ kind: ['raw'], order: 'id' }).map((r) => r.id);
    assert.ok(raws.length >= 250, `raw messages stored: ${raws.length}`);
    const items: ItemInput[] = [];
    const sources: [string, string[]][] = [];
    for (let i = 0; i < 600; i++) {
      const id = `fa:f${String(i).padStart(3, '0')}`;
      items.push({ id, kind: 'fact', text: `fact ${i} about the build cache on host ${i % 13}`, created: T0 - (i % 90) * DAY, importance: (i % 10) / 10, sourceType: 'derivation', tags: i % 9 ? [] : ['build'] });
      sources.push([id, Array.from({ length: 1 + (i % 8) }, (_, k) => raws[(i * 7 + k * 31) % raws.length]!)]);
    }
    await internals(t.engine).store.transaction((tx) => {
      for (const it of items) tx.items.put(it);
      for (const [id, srcs] of sources) tx.itemSources.add(id, srcs);
    });
    await internals(t.engine).index.embedPending();
    await t.engine.close();
    // Another process writes source rows (adds, a removal, a deleted source item, a replaced fact) and crashes.
    await crashedChild(t.storeDir, [
      ['items', 'put', { id: 'fa:new', created: T0 - DAY, text: 'new fact about the deploy pipeline', importance: 0.9, sourceType: 'capture' }],
      ['itemSources', 'add', 'fa:new', [raws[3], raws[5], raws[8]]],
      ['itemSources', 'add', 'fa:f001', [raws[1], raws[2]]],
      ['itemSources', 'remove', 'fa:f010', raws[(10 * 7) % raws.length]],
      ['items', 'delete', raws[40]],
      ['items', 'put', { id: 'fa:f020', created: T0 - 3 * DAY, text: 'fact 20 replaced', importance: 0.2, sourceType: 'capture' }],
    ]);

    // The control: the same folder, never downgraded (v3 snapshot + the same journal).
    const control = path.join(t.dir, 'control');
    cpSync(t.storeDir, control, { recursive: true });
    await downgradeTo(t.storeDir, 2);
    const v2Bytes = statSync(path.join(t.storeDir, SNAPSHOT_FILE)).size;

    const c = await MemoryEngine.open({ storeDir: control, vaultDir: path.join(t.dir, 'control-vault'), clock: t.clock, logger: t.logger });
    try {
      const cs = internals(c).store;
      assert.equal(cs.openReport.migratedFrom, null);
      // The v2 file really is the previous release's shape (checked before the migrated open rewrites it).
      const v2 = new (await initSqlJs()).Database(readFileSync(path.join(t.storeDir, SNAPSHOT_FILE)));
      assert.equal(v2.exec("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_autoindex_item_sources_1'")[0]!.values[0]![0], 1, 'v2: item_sources is a rowid table');
      assert.equal(v2.exec('PRAGMA user_version')[0]!.values[0]![0], 2);
      assert.equal(v2.exec("SELECT count(*) FROM sqlite_master WHERE name IN ('items_blob', 'items_path')")[0]!.values[0]![0], 2, 'v2 has items_blob and items_path');
      v2.close();

      await t.reopen();
      const ms = internals(t.engine).store;
      assert.equal(ms.openReport.migratedFrom, 2);
      assert.ok(ms.openReport.recoveredRecords >= 6, `the crashed process's records replayed on v3: ${ms.openReport.recoveredRecords}`);
      assert.deepEqual(dumpStore(ms), dumpStore(cs), 'every row of every table');
      assert.deepEqual(schemaObjects(ms), schemaObjects(cs), 'the same schema objects (tables, indexes, triggers) as a store created at v3');
      const objs = schemaObjects(ms);
      for (const name of V3_DROPPED) assert.ok(!objs.some((o) => o.name === name), `${name} dropped`);
      for (const o of (await v2TriggersAndIndexes()).filter((x) => !V3_DROPPED.includes(String(x.name)))) assert.deepEqual(objs.find((x) => x.name === o.name), o, `v2's ${String(o.type)} ${String(o.name)} is there, verbatim`);
      assertSourceStatsRecount(ms);
      assert.ok(!schemaObjects(ms).some((o) => o.name === 'sqlite_autoindex_item_sources_1'), 'item_sources has no separate primary-key index');
      assert.match(String(schemaObjects(ms).find((o) => o.name === 'item_sources')?.sql), /WITHOUT ROWID/);
      // The VACUUM keeps rowid order: the raw record finds its newest chunk by rowid (RawBlobsRepo.tailChunk).
      const chunkOrder = (s: Store) => sql(s).all('SELECT id FROM raw_chunks ORDER BY rowid').map((r) => r.id);
      assert.ok(chunkOrder(cs).length > 1);
      assert.deepEqual(chunkOrder(ms), chunkOrder(cs), 'raw chunks in the same rowid order');
      assert.deepEqual(await answers(t.engine), await answers(c), 'figures and recalls');
      // Triggers still keep the figures on the rebuilt table: a write after the migration moves them as on the control.
      for (const e of [t.engine, c]) {
        await internals(e).store.transaction((tx) => {
          tx.itemSources.add('fa:f030', [raws[0]!, raws[99]!]);
          tx.itemSources.remove('fa:f031');
          tx.items.patch(raws[9]!, { created: T0 + DAY });
        });
      }
      assert.deepEqual(dumpStore(ms), dumpStore(cs), 'rows after writes on both');
      assertSourceStatsRecount(ms);
      assert.deepEqual(await answers(t.engine), await answers(c), 'figures after writes on both');
    } finally {
      await c.close();
    }
    await t.engine.close();
    const v3Bytes = statSync(path.join(t.storeDir, SNAPSHOT_FILE)).size;
    assert.ok(v3Bytes < v2Bytes, `migrated snapshot ${v3Bytes} B < v2 snapshot ${v2Bytes} B`);
  });
});
