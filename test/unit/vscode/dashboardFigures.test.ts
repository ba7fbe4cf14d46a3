// The dashboard's figures (overview, tags, review queue, engine card) and the status card, pinned on a store
// with known content — several kinds, tags, sources, forgotten, quarantined, secret, archived and replaced
// items — and kept exact while a second process writes, after a crash (journal replay) and after opening a
// store written before the figures were kept by the store itself (schema 1 → 2 migration, backfilled once).
// The pinned values were taken from the code that computed every figure by scanning; they must not move.
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { DashboardData, type DashboardOptions } from '../../../src/vscode/dashboard/dashboardData';
import type { ItemInput } from '../../../src/engine/store/repositories';
import { downgradeTo } from '../store/schemaDowngrade';
import { internals } from '../../../src/engine/internals';
import { createTestEngine, T0, type TestEngine } from '../engine/builders';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const CHILD = path.join(__dirname, '..', 'store', 'opsChild.js');
/** The figures as the scanning code computed them (out/test/unit/vscode → the source folder). */
const PINNED = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', '..', 'test', 'unit', 'vscode', 'dashboardFigures.pinned.json'), 'utf8')) as
  Record<'initial' | 'afterSecondProcess' | 'afterCrashReplay', Figures>;

type Op = [string, string, ...unknown[]];

/** Runs `ops` in a second process on the same store; `stay`: SIGKILLed once all were acknowledged. */
async function inChild(storeDir: string, ops: Op[], stay = false): Promise<void> {
  const c: ChildProcess = fork(CHILD, [JSON.stringify({ dir: storeDir, ops, stay })], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((r) => c.once('exit', () => r()));
  await new Promise<void>((resolve, reject) => {
    c.on('message', (m: { type: string; code?: string }) => (m.type === 'done' ? resolve() : reject(new Error(`child: ${m.code}`))));
    c.once('exit', (code) => (code !== 0 && !stay ? reject(new Error(`child exited with ${code}`)) : undefined));
  });
  if (stay) c.kill('SIGKILL');
  await exited;
}

/** Raw messages, facts stated by 1–4 of them at spread-out times, entities with mentions, summaries, notes. */
function fixture(): { items: ItemInput[]; sources: [string, string[]][] } {
  const items: ItemInput[] = [];
  const sources: [string, string[]][] = [];
  for (let i = 0; i < 40; i++) {
    items.push({ id: `rw:m${i}`, kind: 'raw', role: i % 2 ? 'assistant' : 'user', text: `message ${i}`, created: T0 - (80 - i * 2) * DAY, sourceType: 'chat', conversation: `c${i % 4}`, provider: i % 2 ? 'openai' : null });
  }
  items.push({ id: 'rw:q', kind: 'raw', text: 'quarantined message', created: T0 - DAY, trust: 'quarantined', sourceType: 'chat' });
  items.push({ id: 'rw:s', kind: 'raw', text: 'secret message', created: T0 - DAY, secret: true, sourceType: 'chat' });
  items.push({ id: 'rw:a', kind: 'raw', text: 'archived message', created: T0 - 90 * DAY, archivedAt: T0 - DAY, sourceType: 'chat' });
  for (let i = 0; i < 30; i++) {
    const id = `fa:f${String(i).padStart(2, '0')}`;
    items.push({
      id, kind: 'fact', text: `fact ${i}`, created: T0 - (70 - i * 2) * DAY, importance: [0.3, 0.5, 0.8, 1][i % 4], accessCount: i % 5,
      lastAccessed: i % 5 ? T0 - (i % 7) * DAY : null, sourceType: i % 3 ? 'derivation' : 'capture', tags: i % 4 === 0 ? ['editor', 'build'] : i % 4 === 1 ? ['editor'] : [],
      salience: i % 6 === 5 ? [0.58, 0.04, 0.62, 0.3, 0.09][i % 5] : null, pinned: i === 7, invalidatedAt: i === 11 ? T0 - DAY : null,
      meta: i === 11 ? { supersededBy: 'fa:f12' } : i === 13 ? { reviewKept: T0 - DAY } : {},
      trust: i === 17 ? 'quarantined' : 'derived', secret: i === 19, archivedAt: i === 23 ? T0 - 2 * DAY : null,
    });
    sources.push([id, Array.from({ length: 1 + (i % 4) }, (_, k) => `rw:m${(i + k * 9) % 40}`)]);
  }
  for (let i = 0; i < 12; i++) {
    const id = `en:e${i}`;
    items.push({ id, kind: 'entity', title: `Entity ${i}`, text: `entity ${i}`, created: T0 - (400 - i * 30) * DAY, importance: i % 3 ? 0.2 : null, sourceType: 'derivation', meta: { mentions: i % 4 }, tags: i % 2 ? ['person'] : [] });
    if (i % 3) sources.push([id, [`rw:m${i}`, `rw:m${i + 20}`]]);
  }
  for (let i = 0; i < 4; i++) {
    const id = `gs:c${i}`;
    items.push({ id, kind: 'summary', text: `summary ${i}`, summary: `Summary of conversation ${i}`, created: T0 - (60 - i * 15) * DAY, importance: 0.4 + i * 0.1, sourceType: 'summary', tags: ['editor', `topic${i}`] });
    sources.push([id, Array.from({ length: 10 }, (_, k) => `rw:m${i + k * 4}`)]);
  }
  items.push({ id: 'wk:alive', kind: 'working', text: 'scratch', created: T0 - HOUR, expiresAt: T0 + 20 * HOUR, tags: ['scratch'] });
  items.push({ id: 'wk:expired', kind: 'working', text: 'expired', created: T0 - 30 * HOUR, expiresAt: T0 - 6 * HOUR });
  items.push({ id: 'dc:d1', kind: 'doc', text: 'doc section', created: T0 - DAY, tags: ['docs'] });
  return { items, sources };
}

interface Figures {
  withSecrets: unknown;
  overview: unknown;
  tags: unknown;
  review: unknown;
  status: unknown;
  headline: number;
  card: unknown;
}

/** Per-item source statistics recounted item by item from item_sources and the source items (the reference). */
function sourceStatsRecounted(t: TestEngine): Record<string, [number, number | null]> {
  const store = internals(t.engine).store;
  const out: Record<string, [number, number | null]> = {};
  for (const it of store.items.list({ kind: ['fact', 'summary', 'entity'], order: 'id' })) {
    const srcs = store.itemSources.sourcesOf(it.id);
    if (!srcs.length) continue;
    const created = store.items.getMany(srcs).map((s) => s.created);
    out[it.id] = [srcs.length, created.length ? Math.max(...created) : null];
  }
  return out;
}

function keptSourceStats(t: TestEngine): Record<string, [number, number | null]> {
  const m = internals(t.engine).store.itemSources.sourceStats(['fact', 'summary', 'entity']);
  return Object.fromEntries([...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([id, s]) => [id, [s.count, s.lastCreated]]));
}

async function figures(t: TestEngine, opts: DashboardOptions): Promise<Figures> {
  internals(t.engine).store.refresh();
  // Items another process changed are re-embedded in the background: the card's "with a vector" counts are pinned
  // for a caught-up index, so wait for it (without this the figure depends on whether the poll saw the writes first).
  await internals(t.engine).index.embedPending();
  assert.deepEqual(keptSourceStats(t), sourceStatsRecounted(t), 'per-item source statistics');
  const data = new DashboardData(t.engine, () => opts);
  const { briefing: _b, consolidationNote: _c, ...overview } = data.overview();
  const s = t.engine.status();
  const card = data.engineCard();
  const all = new DashboardData(t.engine, () => ({ ...opts, includeSecrets: true }));
  return {
    withSecrets: { counts: all.overview().counts, tags: all.tags(), review: all.review().map((e) => e.id) },
    overview, tags: data.tags(), review: data.review(),
    status: { items: s.items, recallable: s.recallable, invalidatedFacts: s.invalidatedFacts, conversations: s.conversations, bufferedMessages: s.bufferedMessages, rawRecord: s.rawRecord, skips: s.skips, saved: s.saved },
    headline: t.engine.headline().items,
    card: { summaries: card.summariesWithVector, facts: card.factsWithVector },
  };
}

describe('Dashboard and status figures (kept exact across processes, crashes and the schema migration)', () => {
  let t: TestEngine;

  beforeEach(async () => {
    t = await createTestEngine();
    const { items, sources } = fixture();
    await internals(t.engine).store.transaction((tx) => {
      for (const it of items) tx.items.put(it);
      for (const [id, srcs] of sources) tx.itemSources.add(id, srcs);
    });
    mkdirSync(path.join(t.vaultDir, 'semantic'), { recursive: true });
    writeFileSync(path.join(t.vaultDir, 'semantic', 'odd.md'), '---\nkind: reference\nsummary: An odd note\nuntrusted: true\ntags: [editor, odd]\n---\nodd\n');
    assert.ok(await t.engine.syncVaultFile('semantic/odd.md'));
    // Raw record rows (raw_blobs / raw_chunks) through the real write path, and one forgotten item.
    await t.engine.importMessages([
      { conversation: 'imp', role: 'user', text: 'We deploy the payments service with the blue-green pipeline every Tuesday.', at: T0 - 3 * DAY },
      { conversation: 'imp', role: 'assistant', text: 'Noted: blue-green pipeline, Tuesdays, with a manual approval step before the switch.', at: T0 - 3 * DAY + 1000 },
    ]);
    await t.engine.flush();
    await internals(t.engine).index.embedPending();
    await t.engine.forget('fa:f03');
  });
  afterEach(async () => { await t.cleanup(); });

  it('pins every figure, keeps them while another process writes, after its crash and after migrating from schema 1', async function () {
    this.timeout(60_000);
    const opts: DashboardOptions = { includeSecrets: false };
    assert.deepEqual(await figures(t, opts), PINNED.initial);

    // A second process: new facts with sources, a replaced fact (INSERT OR REPLACE), a deleted source (the
    // newest of fa:f09's), a removed source row, salience and trust changes, recalls, archive, forget-like delete.
    await inChild(t.storeDir, [
      ['items', 'put', { id: 'fa:new1', created: T0 - 2 * DAY, text: 'new fact', importance: 0.9, accessCount: 3, lastAccessed: T0 - DAY, sourceType: 'capture', tags: ['editor', 'fresh'] }],
      ['itemSources', 'add', 'fa:new1', ['rw:m39', 'rw:m38', 'rw:m1']],
      ['items', 'put', { id: 'fa:f05', created: T0 - 60 * DAY, text: 'fact 5 replaced', importance: 0.1, salience: 0.07, sourceType: 'capture', tags: ['replaced'] }],
      ['items', 'delete', 'rw:m36'],
      ['itemSources', 'remove', 'fa:f10', 'rw:m10'],
      ['items', 'patch', 'fa:f14', { salience: 0.61 }],
      ['items', 'patch', 'fa:f15', { trust: 'quarantined' }],
      ['items', 'patch', 'en:e4', { secret: true }],
      ['items', 'patch', 'fa:f16', { archivedAt: T0 - HOUR }],
      ['items', 'touchAccess', ['fa:f18', 'fa:f20', 'gs:c1'], T0 - HOUR],
      ['items', 'patch', 'gs:c2', { created: T0 - 200 * DAY }],
    ]);
    assert.deepEqual(await figures(t, opts), PINNED.afterSecondProcess);

    // A crash: with this process closed, the other one writes and is killed without closing (its records
    // are only in the journal); the next open replays them.
    await t.engine.close();
    await inChild(t.storeDir, [
      ['items', 'put', { id: 'fa:new2', created: T0 - 5 * DAY, text: 'crash fact', importance: 1, accessCount: 4, sourceType: 'derivation', tags: ['crash'] }],
      ['itemSources', 'add', 'fa:new2', ['rw:m2', 'rw:m37']],
      ['items', 'delete', 'fa:f21'],
      ['itemSources', 'remove', 'fa:f21'],
      ['items', 'patch', 'fa:f22', { invalidatedAt: T0 - HOUR, meta: { supersededBy: 'fa:new2' } }],
    ], true);
    await t.reopen();
    assert.ok(internals(t.engine).store.openReport.recoveredRecords > 0, 'the reopen replayed the crashed process\'s journal records');
    assert.deepEqual(await figures(t, opts), PINNED.afterCrashReplay);

    // The store as the previous release wrote it (schema 1, a journal record on top — a recall counted on a
    // raw message and a patch that re-states its role, no figure moves): migrated and backfilled once; the recall
    // index image saved at the close before still catches up on that record (the migration's compaction keeps what
    // it touched). The access count alone is index-neutral and would not be re-read.
    await t.engine.close();
    await inChild(t.storeDir, [['items', 'touchAccess', ['rw:m0', 'rw:m1'], T0], ['items', 'patch', 'rw:m0', { role: 'user' }]], true);
    await downgradeTo(t.storeDir, 1);
    await t.reopen();
    assert.equal(internals(t.engine).store.openReport.migratedFrom, 1);
    assert.deepEqual([t.engine.indexOpen.mode, t.engine.indexOpen.caughtUp], ['loaded', 1]);
    assert.deepEqual(await figures(t, opts), PINNED.afterCrashReplay);
  });
});
