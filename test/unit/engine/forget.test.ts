import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describeForgetPlan } from '../../../src/engine/engine';
import { forgetInLogs, parseDailyLog, removeLogMessages } from '../../../src/engine/vault/dailyLog';
import { createTestEngine, T0, turn, type TestEngine } from './builders';
import { internals } from '../../../src/engine/internals';

const SECRET = 'Our office printer is a Brother HL-L2350 sitting behind the reception desk of floor three.';
const DAY = '2026-11-02';

describe('forget that forgets (R-MAINT-4)', () => {
  let t: TestEngine;
  beforeEach(async () => { t = await createTestEngine(); });
  afterEach(async () => { await t.cleanup(); });

  const logFile = () => path.join(t.vaultDir, 'logs', `${DAY}.md`);
  async function seed() {
    const keep1 = await t.engine.recordTurn(turn({ conversation: 'c1', user: 'The first message of the day is about the staging deployment for payments.' }));
    const r = await t.engine.recordTurn(turn({ conversation: 'c1', user: `Inventory for the office move:\nprinter: Brother HL-L2350\n${SECRET}` }));
    const keep2 = await t.engine.recordTurn(turn({ conversation: 'c2', user: 'Another conversation that mentions nothing about printers at all, only lunch.' }));
    await t.engine.flush();
    await t.engine.close(); // the logs are written detached: close waits for them
    await t.reopen();
    return { victim: r.ids[0]!, keep: [...keep1.ids, ...keep2.ids] };
  }

  it('previews every place it will remove from, in ids, paths and days only', async () => {
    const { victim } = await seed();
    const fact = internals(t.engine).store.items.list({ kind: 'fact' }).find((f) => f.subkind === 'printer')!;
    const plan = await t.engine.forgetPreview(victim);
    assert.ok(plan.derived.includes(fact.id), 'the fact derived only from it');
    assert.equal(plan.rawRecord, true);
    assert.deepEqual(plan.logDays, [DAY]);
    assert.equal(plan.indexed, 1 + plan.derived.length);
    assert.equal(plan.noteFile, null);
    const lines = describeForgetPlan(plan);
    assert.ok(lines.some((l) => l.includes(`logs/${DAY}.md`)));
    assert.ok(lines.some((l) => l.includes('raw record')));
    assert.ok(lines.some((l) => l.includes(fact.id)));
    assert.ok(!lines.join('\n').includes('Brother'), 'no memory text in the list');
    assert.ok(internals(t.engine).store.items.get(victim), 'a preview changes nothing');
  });

  it('keeps a raw-record message another item still points at (same text said twice), and removes it with the last one', async () => {
    const said = 'The quarterly badge audit is due on the first Monday of March, owner Priya.';
    const a = (await t.engine.recordTurn(turn({ conversation: 'd1', user: said }))).ids[0]!;
    const b = (await t.engine.recordTurn(turn({ conversation: 'd2', user: said }))).ids[0]!;
    await t.engine.flush();
    const store = internals(t.engine).store;
    const hash = store.items.get(a)!.blobHash!;
    assert.ok(hash && store.items.get(b)!.blobHash === hash, 'one content address for both');
    assert.equal((await t.engine.forgetPreview(a)).rawRecord, false, 'the other message still points at it');
    await t.engine.forget(a);
    assert.equal(store.rawBlobs.get(hash)!.text, said, 'still readable for the other message');
    assert.equal((await t.engine.forgetPreview(b)).rawRecord, true);
    await t.engine.forget(b);
    assert.equal(store.rawBlobs.get(hash), undefined);
  });

  it('removes the text from the store, the indexes, the vectors, derived rows, the raw chunk, the log and the files on disk', async () => {
    const { victim, keep } = await seed();
    const fact = internals(t.engine).store.items.list({ kind: 'fact' }).find((f) => f.subkind === 'printer')!;
    await internals(t.engine).index.embedPending();
    assert.ok(internals(t.engine).index.hasVector(victim), 'the message had a vector');
    const logBefore = readFileSync(logFile(), 'utf8');
    const plan = await t.engine.forgetPreview(victim);
    const res = await t.engine.forget(victim);
    assert.deepEqual(res.removed, [victim, ...plan.derived]);
    for (const id of plan.derived) assert.equal(internals(t.engine).store.items.get(id), undefined, `${id} is gone`);
    // store and derived rows
    assert.equal(internals(t.engine).store.items.get(victim), undefined);
    assert.equal(internals(t.engine).store.items.get(fact.id), undefined);
    // keyword and vector indexes
    assert.equal(internals(t.engine).index.has(victim), false);
    assert.equal(internals(t.engine).index.hasVector(victim), false);
    assert.equal(internals(t.engine).index.has(fact.id), false);
    assert.equal((await t.engine.search('Brother HL-L2350 printer reception', {})).filter((h) => h.id === victim || h.id === fact.id).length, 0);
    // raw chunk
    const chunks: string[] = [];
    internals(t.engine).store.rawBlobs.forEachChunk((c) => { chunks.push(...c.texts); });
    assert.ok(!chunks.some((x) => x.includes('Brother')), 'the raw record no longer holds it');
    // the daily log: exactly that block is gone, every other byte is the same
    const logAfter = readFileSync(logFile(), 'utf8');
    assert.ok(!logAfter.includes('Brother'));
    assert.equal(logAfter, removeLogMessages(logBefore, { conversation: 'c1', role: 'user', text: `Inventory for the office move:\nprinter: Brother HL-L2350\n${SECRET}` }).content);
    assert.equal(parseDailyLog(logAfter).length, parseDailyLog(logBefore).length - 1);
    // the other messages are untouched
    for (const id of keep) assert.ok(internals(t.engine).store.items.get(id), `${id} is kept`);
    // no copy in the snapshot, the journal or the saved index on disk
    for (const f of ['memory.db', 'memory.journal', path.join('index', 'recall.idx')]) {
      const bytes = readFileSync(path.join(t.storeDir, f));
      assert.equal(bytes.includes('Brother HL-L2350'), false, `${f} holds no plain copy`);
    }
    // The saved index lists its documents' ids: the forgotten one is not among them (the audit log in the store keeps the id, by design).
    assert.equal(readFileSync(path.join(t.storeDir, 'index', 'recall.idx')).includes(victim), false, 'the index image does not name it');
    // and after a reopen (index rebuilt or loaded) it stays gone
    await t.reopen();
    const again = await t.engine.search('Brother HL-L2350', {});
    assert.deepEqual(again.filter((h) => /Brother/.test(h.text)).map((h) => h.id), []);
  });

  it('writes one audit row with ids and counts only', async () => {
    const { victim } = await seed();
    const fact = internals(t.engine).store.items.list({ kind: 'fact' }).find((f) => f.subkind === 'printer')!;
    const plan = await t.engine.forgetPreview(victim);
    assert.ok(plan.derived.includes(fact.id));
    await t.engine.forget(victim, 'cli');
    const rows = internals(t.engine).store.audit.list({ action: 'forget' });
    assert.equal(rows.length, 1);
    const row = rows[0]!;
    assert.equal(row.itemId, victim);
    assert.equal(row.actor, 'cli');
    assert.equal(row.at, T0);
    assert.deepEqual(row.detail, { kind: 'raw', removed: [victim, ...plan.derived], file: false, rawRecord: true, logEntries: 1 });
    assert.ok(!JSON.stringify(row).includes('Brother') && !JSON.stringify(row).includes('printer'), 'no memory text in the audit log');
  });

  it('deletes a note\'s file and says so in the preview', async () => {
    const { id, path: file } = await t.engine.remember({ text: 'I keep my dotfiles in a private repository called shelf.' });
    const plan = await t.engine.forgetPreview(id);
    assert.equal(plan.noteFile, id.slice(3));
    await t.engine.forget(id);
    assert.throws(() => readFileSync(file), /ENOENT/);
  });

  it('refuses bad ids before touching anything', async () => {
    await assert.rejects(t.engine.forgetPreview('nope'), /E_BAD_ID|unknown memory id/);
    await assert.rejects(t.engine.forget('rw:does-not-exist'), /no such memory/);
    await assert.rejects(t.engine.forget('vt:../outside.md'), (e: Error & { code?: string }) => !!e.code);
  });
});

describe('daily log rewrite for forget', () => {
  it('cuts only the matching block and keeps the rest byte-identical, atomically', async () => {
    const t = await createTestEngine();
    try {
      const dir = path.join(t.vaultDir, 'logs');
      const content = `# ${DAY}\n\nA hand-written line the user added.\n\n### user\n<!-- memory: at=2026-11-02T09:00:00.000Z conversation=a -->\nkeep me\n\n### assistant\n<!-- memory: at=2026-11-02T09:00:00.000Z conversation=a -->\nforget me\n\n### user\n<!-- memory: at=2026-11-02T09:01:00.000Z conversation=b -->\nforget me\n\n`;
      const { mkdirSync } = await import('node:fs');
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `${DAY}.md`), content);
      const done = await forgetInLogs(t.vaultDir, [DAY, '2026-11-01'], { conversation: 'a', role: 'assistant', text: 'forget me' });
      assert.deepEqual(done, [DAY]);
      const after = readFileSync(path.join(dir, `${DAY}.md`), 'utf8');
      assert.equal(after, content.replace('### assistant\n<!-- memory: at=2026-11-02T09:00:00.000Z conversation=a -->\nforget me\n\n', ''));
      // Same text in another conversation is another message: kept.
      assert.match(after, /conversation=b -->\nforget me/);
      const { readdirSync } = await import('node:fs');
      assert.deepEqual(readdirSync(dir), [`${DAY}.md`], 'no temp file left behind');
    } finally {
      await t.cleanup();
    }
  });
});
