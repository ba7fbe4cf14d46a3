// The dashboard's read-only queries (R-UI-5) on a real engine (sql.js store, vault files in a temp dir):
// counts, paging, one item / note in full, the graph, the review queue, and what is never shown
// (quarantined items beyond counts, secret items unless includeSecrets).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CONSOLIDATION_NOTE, DashboardData, type DashboardOptions } from '../../../src/vscode/dashboard/dashboardData';
import type { ItemInput } from '../../../src/engine/store/repositories';
import { createTestEngine, T0, type TestEngine } from '../engine/builders';
import { internals } from '../../../src/engine/internals';

const HOUR = 3_600_000;

async function seed(t: TestEngine, items: ItemInput[]): Promise<void> {
  await internals(t.engine).store.transaction((tx) => { for (const it of items) tx.items.put(it); });
}

function writeVault(t: TestEngine, rel: string, text: string): void {
  const p = path.join(t.vaultDir, ...rel.split('/'));
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, text);
}

const fact = (n: number, over: Partial<ItemInput> = {}): ItemInput => ({
  id: `fa:${String(n).padStart(4, '0')}`, kind: 'fact', text: `editor: fact number ${n}`, created: T0 + n * HOUR, importance: 0.5,
  sourceType: 'derivation', tags: ['editor'], ...over,
});

describe('Dashboard data', () => {
  let t: TestEngine;
  let opts: DashboardOptions;
  let data: DashboardData;

  beforeEach(async () => {
    t = await createTestEngine();
    opts = { includeSecrets: false };
    data = new DashboardData(t.engine, () => opts);
  });
  afterEach(async () => { await t.cleanup(); });

  it('counts each layer and leaves quarantined and secret items out of everything but their own counters', async () => {
    await seed(t, [
      fact(1, { salience: 0.9 }),
      fact(2, { invalidatedAt: T0 + 5 * HOUR, salience: 0.1 }),
      fact(3, { trust: 'quarantined', salience: 0.5 }),
      fact(4, { secret: true, tags: ['contains-secrets'], salience: 0.5 }),
      { id: 'gs:conv-1', kind: 'summary', text: 'Talked about the editor', created: T0 + 6 * HOUR, sourceType: 'summary', salience: 0.4 },
      { id: 'wk:1', kind: 'working', text: 'scratch', created: T0, expiresAt: T0 + 48 * HOUR },
      { id: 'wk:2', kind: 'working', text: 'expired', created: T0 - 48 * HOUR, expiresAt: T0 - HOUR },
      { id: 'fa:arch', kind: 'fact', text: 'old: fact', created: T0 - 100 * HOUR, archivedAt: T0, originalId: 'fa:orig' },
    ]);
    await t.engine.remember({ text: 'I prefer tabs over spaces in every project.' });

    const o = data.overview();
    assert.deepEqual(o.counts, {
      working: 1, episodic: 3, facts: 2, invalidatedFacts: 1, vaultFiles: 1, archived: 1, quarantined: 1, secretHidden: 1,
      readyToPromote: 1, readyToDemote: 0,
    });
    assert.equal(o.consolidationNote, CONSOLIDATION_NOTE);
    assert.deepEqual(o.salience, { min: 0.1, avg: 0.467, max: 0.9, basis: 'salience' });
    assert.equal(o.histogram.length, 10);
    assert.equal(o.histogram.reduce((n, b) => n + b.count, 0), 3);
    assert.equal(o.histogram[9]!.count, 1, '0.9 lands in the top bin');
    assert.deepEqual(o.episodicBySource, [{ source: 'derivation', count: 2 }, { source: 'summary', count: 1 }]);
    assert.deepEqual(o.newestEpisodic.map((r) => r.id), ['gs:conv-1', 'fa:0002', 'fa:0001']);
    assert.ok(!JSON.stringify(o).includes('fa:0003') && !JSON.stringify(o).includes('fa:0004'));
    assert.deepEqual(data.episodic().rows.map((r) => r.id), ['gs:conv-1', 'fa:0002', 'fa:0001']);
    assert.deepEqual(data.archive().rows.map((r) => [r.id, r.originalId]), [['fa:arch', 'fa:orig']]);
    assert.deepEqual(data.working().rows.map((r) => r.id), ['wk:1']);
    assert.equal(data.notes().total, 1);

    opts = { includeSecrets: true };
    const withSecrets = data.overview();
    assert.equal(withSecrets.counts.secretHidden, 0);
    assert.equal(withSecrets.counts.facts, 3);
    assert.equal(data.episodic().total, 4, 'the secret fact is listed once includeSecrets is on; the quarantined one never');
  });

  it('counts hidden raw messages, tags of visible items only, scores outside 0–1 in the end bins, and unpinned items below demotion', async () => {
    await seed(t, [
      { id: 'rw:q1', kind: 'raw', role: 'user', text: 'quarantined message', created: T0, trust: 'quarantined' },
      { id: 'rw:s1', kind: 'raw', role: 'user', text: 'secret message', created: T0, secret: true },
      { id: 'rw:a1', kind: 'raw', role: 'user', text: 'archived message', created: T0, archivedAt: T0 + HOUR },
      { id: 'rw:v1', kind: 'raw', role: 'user', text: 'plain message', created: T0, tags: ['rawtag'] },
      fact(1, { salience: 1.5, tags: ['b', 'a'] }),
      fact(2, { salience: -0.2, tags: ['a'] }),
      fact(3, { salience: 0.05, pinned: true, tags: ['a'] }),
      fact(4, { salience: 0.1, trust: 'quarantined', tags: ['hidden'] }),
      fact(5, { salience: 0.5, archivedAt: T0 + HOUR, tags: ['gone'] }),
      { id: 'wk:t', kind: 'working', text: 'expired but tagged', created: T0 - 48 * HOUR, expiresAt: T0 - HOUR, tags: ['b'] },
    ]);
    const o = data.overview();
    assert.deepEqual([o.counts.quarantined, o.counts.secretHidden, o.counts.archived], [2, 1, 2]);
    assert.deepEqual([o.counts.readyToPromote, o.counts.readyToDemote], [1, 1], 'the pinned low fact is not ready to demote');
    assert.equal(o.histogram[9]!.count, 1, '1.5 lands in the top bin');
    assert.equal(o.histogram[0]!.count, 2, '-0.2 and 0.05 land in the bottom bin');
    assert.deepEqual(o.salience, { min: -0.2, max: 1.5, avg: 0.45, basis: 'salience' });
    assert.deepEqual(o.topTags, [{ tag: 'a', count: 3 }, { tag: 'b', count: 2 }]);
    assert.deepEqual(data.tags(), [{ tag: 'a', count: 3 }, { tag: 'b', count: 2 }]);
    opts = { includeSecrets: true };
    assert.deepEqual([data.overview().counts.secretHidden, data.overview().counts.quarantined], [0, 2]);
  });

  it('falls back to importance where salience is unset and says so', async () => {
    await seed(t, [fact(1, { importance: 0.2 }), fact(2, { importance: 0.6 })]);
    const o = data.overview();
    assert.deepEqual(o.salience, { min: 0.2, avg: 0.4, max: 0.6, basis: 'importance' });
    assert.equal(o.histogram[2]!.count, 1);
    assert.equal(o.histogram[6]!.count, 1);
  });

  it('pages the episodic table newest first, with the total of visible rows', async () => {
    await seed(t, [...Array.from({ length: 120 }, (_, i) => fact(i)), fact(500, { trust: 'quarantined' })]);
    const first = data.episodic();
    assert.equal(first.total, 120);
    assert.equal(first.rows.length, 50);
    assert.equal(first.rows[0]!.id, 'fa:0119');
    const last = data.episodic({ offset: 100 });
    assert.deepEqual([last.rows.length, last.rows[19]!.id], [20, 'fa:0000']);
  });

  it('treats a nonsense page request as the first page and caps its size', async () => {
    await seed(t, Array.from({ length: 250 }, (_, i) => fact(i)));
    const p = data.episodic({ offset: -5, limit: 10_000 });
    assert.deepEqual([p.offset, p.pageSize, p.rows.length, p.total], [0, 200, 200, 250]);
    const q = data.episodic({ offset: 1.5 as number, limit: 0 });
    assert.deepEqual([q.offset, q.pageSize], [0, 50]);
  });

  it('opens one item with its provenance, and answers for a hidden one exactly as for a missing one', async () => {
    await seed(t, [
      { id: 'rw:src', kind: 'raw', text: 'We use vim.', created: T0, conversation: 'c1', role: 'assistant', provider: 'copilot', model: 'gpt' },
      fact(1, { provider: 'copilot', model: 'gpt', validFrom: T0 + HOUR, accessCount: 3, lastAccessed: T0 + 2 * HOUR, conversation: 'c2' }),
      fact(2, { secret: true }),
      fact(3, { trust: 'quarantined' }),
    ]);
    await internals(t.engine).store.transaction((tx) => tx.itemSources.add('fa:0001', ['rw:src']));
    const d = data.item('fa:0001');
    assert.equal(d.sourceId, 'rw:src');
    assert.equal(d.agent, 'copilot/gpt');
    assert.equal(d.accessCount, 3);
    assert.equal(d.conversationCount, 2);
    assert.equal(d.validFrom, T0 + HOUR);
    assert.equal(d.text, 'editor: fact number 1');
    for (const id of ['fa:0002', 'fa:0003', 'fa:none']) assert.throws(() => data.item(id), { code: 'E_NOT_FOUND' });
    assert.throws(() => data.item(42 as unknown as string), { code: 'E_BAD_ID' });
    opts = { includeSecrets: true };
    assert.equal(data.item('fa:0002').id, 'fa:0002');
  });

  it('opens a vault note with its frontmatter, tags, links and backlinks', async () => {
    writeVault(t, 'semantic/editor.md', '---\nkind: user\ntags: [tools]\n---\nI use [[Keyboard]] and [[Nowhere]].\n');
    writeVault(t, 'semantic/keyboard.md', '---\nkind: reference\n---\nA split keyboard. See [[editor]].\n');
    await internals(t.engine).vault.syncAll();
    const n = await data.note('vt:semantic/editor.md');
    assert.equal(n.frontmatter.kind, 'user');
    assert.deepEqual(n.tags, ['tools']);
    assert.deepEqual(n.links, [{ target: 'Keyboard', toId: 'vt:semantic/keyboard.md' }, { target: 'Nowhere', toId: null }]);
    assert.deepEqual(n.backlinks, ['vt:semantic/keyboard.md']);
    assert.match(n.content, /I use \[\[Keyboard\]\]/);
    await assert.rejects(data.note('fa:0001'), { code: 'E_NOT_FOUND' });
  });

  it('draws notes, their links, their tags and missing link targets as a graph', async () => {
    writeVault(t, 'semantic/a.md', '---\ntags: [x]\n---\nSee [[b]] and [[ghost]].\n');
    writeVault(t, 'semantic/b.md', 'Back to [[a]].\n');
    await internals(t.engine).vault.syncAll();
    const g = data.graph();
    const ids = g.nodes.map((n) => `${n.type}:${n.id}`).sort();
    assert.deepEqual(ids, ['missing:?ghost', 'note:vt:semantic/a.md', 'note:vt:semantic/b.md', 'tag:#x']);
    assert.equal(g.edges.filter((e) => e.type === 'link').length, 3);
    assert.equal(g.truncated, false);
    assert.equal(data.graph(1).truncated, true);
  });

  it('queues untrusted notes and superseded facts for review', async () => {
    await seed(t, [
      fact(1, { invalidatedAt: T0 + HOUR, meta: { supersededBy: 'fa:0002' } }),
      fact(2),
      { id: 'vt:semantic/odd.md', kind: 'note', path: 'semantic/odd.md', text: 'odd', summary: 'An odd note', created: T0, untrusted: true },
    ]);
    const r = data.review();
    assert.deepEqual(r.map((e) => [e.reason, e.id]).sort(), [['invalidated-conflict', 'fa:0001'], ['untrusted-note', 'vt:semantic/odd.md']]);
    opts = { includeSecrets: false, thresholds: { promote: 0.8, demote: 0.2 } };
    await seed(t, [fact(3, { salience: 0.78 })]);
    assert.ok(data.review().some((e) => e.reason === 'near-threshold' && e.id === 'fa:0003'));
    assert.equal(data.overview().counts.readyToPromote, 0);
  });

  it('lists quarantines with counts only', async () => {
    await internals(t.engine).store.transaction((tx) => {
      tx.items.put(fact(1, { trust: 'quarantined' }));
      tx.quarantines.put({ id: 'q1', created: T0, provider: 'copilot', model: 'gpt', rangeFrom: null, rangeTo: null, reason: 'bad model', counts: { raw: 2, facts: 1 }, detail: {} });
      tx.quarantines.addRows([{ quarantineId: 'q1', itemId: 'fa:0001', prevTrust: 'derived', noteFrom: null, noteTo: null }]);
    });
    const q = data.quarantines();
    assert.deepEqual(q, [{ id: 'q1', created: T0, provider: 'copilot', model: 'gpt', status: 'active', reason: 'bad model', counts: { raw: 2, facts: 1 }, items: 1 }]);
    assert.ok(!JSON.stringify(q).includes('fact number'));
  });

  it('fills the recall engine card from the engine status, counts and switches only', () => {
    const c = data.engineCard();
    assert.equal(c.embedderModel, 'off');
    assert.match(c.factsWithVector, /^\d+ of \d+$/);
    assert.equal(c.rawRecord, true);
    assert.equal(c.includeSecrets, false);
    assert.equal(typeof c.recallBudgetChars, 'number');
  });
});
