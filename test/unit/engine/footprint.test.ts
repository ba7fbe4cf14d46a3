import assert from 'node:assert/strict';
import { describeHealth } from '../../../src/engine/maintain/health';
import { createTestEngine, turn, type TestEngine } from './builders';
import { internals } from '../../../src/engine/internals';
import { lazyFileOf } from '../../../src/engine/store/sqlJsPatched';

describe('engine footprint and health (R-MAINT-3)', () => {
  let t: TestEngine;
  beforeEach(async () => { t = await createTestEngine(); });
  afterEach(async () => { await t.cleanup(); });

  it('a fresh store with a few items is ok, measured on memory itself (not the process)', async () => {
    for (let i = 0; i < 3; i++) await t.engine.recordTurn(turn());
    await t.engine.remember({ text: 'I prefer tabs over spaces in every TypeScript project.' });
    const h = t.engine.headline().health;
    const f = h.footprint;
    assert.equal(h.level, 'ok');
    assert.equal(h.bytes, f.memoryBytes);
    assert.equal(f.memoryBytes, f.databaseBytes + f.keywordIndexBytes + f.vectorIndexBytes + f.cacheBytes);
    // The real sql.js heap (a WebAssembly memory: whole 64 KiB pages) plus what of the database file sql.js keeps in
    // memory: all of it here (a small store), the pages written since the snapshot for one read on demand.
    const store = internals(t.engine).store;
    const heap = store.heapBytes, file = store.fileMemoryBytes;
    if (!lazyFileOf((store as unknown as { db: object }).db)) assert.equal(file, store.dbBytes);
    assert.ok(heap >= 65536 && heap % 65536 === 0, `heap ${heap}`);
    assert.ok(file > 0 && file % 4096 === 0, `file ${file}`);
    assert.equal(f.databaseBytes, heap + file);
    assert.ok(f.keywordIndexBytes > 0 && f.cacheBytes > 0);
    // Far below the host process's resident memory, which the old health sampled.
    assert.ok(f.memoryBytes < process.memoryUsage().rss, 'the footprint is memory\'s own, not the process\'s');
    assert.ok(f.diskBytes >= f.disk.snapshotBytes + f.disk.journalBytes);
    assert.ok(f.disk.journalBytes > 0, 'acknowledged writes are in the journal');
    assert.match(describeHealth(h), /^ok — memory holds .* in RAM \(database .*keyword index .*vectors .*caches .*\) and .* on disk$/);
  });

  it('grows with the indexes and rates the thresholds against it', async () => {
    const before = t.engine.footprint();
    let x = 7;
    const word = () => { x = (x * 48271) % 2147483647; return (x % 46656 + 1296).toString(36); };
    for (let i = 0; i < 60; i++) {
      await t.engine.recordTurn(turn({ conversation: `c${i % 5}`, user: Array.from({ length: 40 }, word).join(' '), assistant: Array.from({ length: 40 }, word).join(' ') }));
    }
    await t.engine.flush();
    const after = t.engine.footprint();
    assert.ok(after.keywordIndexBytes > before.keywordIndexBytes, 'new vocabulary costs keyword-index bytes');
    assert.ok(after.databaseBytes > before.databaseBytes, 'the database file in memory grew');
    assert.ok(after.cacheBytes > before.cacheBytes, 'new items cost metadata bytes');
    assert.ok(after.vectorIndexBytes >= before.vectorIndexBytes);
    t.engine.updateSettings({ healthWarnBytes: after.memoryBytes - 1, healthCritBytes: after.memoryBytes * 10 });
    assert.equal(t.engine.headline().health.level, 'warn');
    t.engine.updateSettings({ healthCritBytes: after.memoryBytes });
    assert.equal(t.engine.headline().health.level, 'critical');
  });

  it('its health monitor samples the footprint every N turns and words a notice once', async () => {
    await t.engine.recordTurn(turn());
    t.engine.updateSettings({ healthEveryNTurns: 2, healthWarnBytes: 1, healthCritBytes: Number.MAX_SAFE_INTEGER });
    assert.equal(internals(t.engine).healthMonitor.onTurn(), undefined);
    const r = internals(t.engine).healthMonitor.onTurn();
    assert.equal(r?.level, 'warn');
    assert.equal(r?.bytes, t.engine.footprint().memoryBytes);
    assert.match(internals(t.engine).healthMonitor.notice() ?? '', /^Memory health warning: memory holds \d+ MB in RAM \(its database, indexes and caches/);
    assert.equal(internals(t.engine).healthMonitor.notice(), null);
  });

  it('counts the saved index and vectors on disk after close', async () => {
    for (let i = 0; i < 3; i++) await t.engine.recordTurn(turn());
    await t.engine.flush();
    const e = await t.reopen();
    const f = e.footprint();
    assert.ok(f.disk.indexBytes > 0, 'the recall index image is on disk');
    assert.ok(f.disk.snapshotBytes > 0, 'the close compacted into the snapshot');
  });
});
