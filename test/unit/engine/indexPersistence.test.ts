import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MemoryEngine } from '../../../src/engine/engine';
import { HashEmbedder } from '../../../src/engine/embed/hashEmbedder';
import { nullLogger } from '../../../src/engine/host';
import { RecallIndex, type IndexedItem } from '../../../src/engine/recall/recallIndex';
import { makeTinyE5, TINY_E5_MODEL_ID } from '../../fixtures/makeTinyE5';
import { createTestEngine, turn, type TestEngine } from './builders';
import { internals } from '../../../src/engine/internals';
import { keywordFormatOf, keywordPartOf, toV1, toV3, withKeywordV1 } from '../recall/oldFormats';

const idxFile = (t: TestEngine) => path.join(t.storeDir, 'index', 'recall.idx');

async function seed(t: TestEngine, n = 3): Promise<void> {
  for (let i = 0; i < n; i++) {
    await t.engine.recordTurn(turn({ conversation: `k${i}`, project: 'alpha', user: `The kestrel-${i} service publishes to the orders topic through Kafka with retries number ${i}.` }));
  }
  await t.engine.flush();
}

describe('recall index persistence (engine)', function () {
  this.timeout(60_000);
  let t: TestEngine;
  beforeEach(async () => { t = await createTestEngine(); });
  afterEach(async () => { await t.cleanup(); });

  it('reopens from the saved index without a rebuild, keeps every vector and finds the same hits', async () => {
    await seed(t);
    const before = (await t.engine.search('kestrel Kafka orders topic', { project: 'alpha' })).map((h) => h.id);
    assert.ok(before.length > 0);
    const vectorsBefore = internals(t.engine).index.vectorCount;
    await t.reopen();
    assert.equal(t.engine.indexOpen.mode, 'loaded');
    assert.equal(t.engine.indexOpen.adoptedVectors, vectorsBefore);
    assert.equal(internals(t.engine).index.pendingVectorCount, 0, 'nothing re-embedded');
    const after = (await t.engine.search('kestrel Kafka orders topic', { project: 'alpha' })).map((h) => h.id);
    assert.deepEqual(after, before);
    assert.match(t.engine.status().embedder.vectors, /^(\d+) of \1$/);
  });

  it('a flush does not read its messages back into the index, and the index answers as one rebuilt from the store', async () => {
    for (let i = 0; i < 6; i++) {
      await t.engine.recordTurn(turn({ conversation: `fl${i}`, project: 'alpha', user: `The heron-${i} pipeline exports invoices to the ledger service every night, batch ${i}.`, assistant: `Noted: heron-${i} runs nightly.` }));
    }
    const index = internals(t.engine).index;
    const messages = internals(t.engine).store.items.count({ kind: 'raw' });
    assert.ok(messages >= 6, `${messages} messages`);
    const kinds = () => internals(t.engine).store.items.count({}) - internals(t.engine).store.items.count({ kind: 'raw' });
    const nonRawBefore = kinds();
    const v0 = index.version;
    await t.engine.flush();
    void internals(t.engine).index.size; // catch up
    const upserts = internals(t.engine).index.version - v0;
    assert.equal(internals(t.engine).store.items.count({ kind: 'raw' }), messages);
    assert.ok(internals(t.engine).store.items.list({ kind: 'raw' }).every((it) => it.text === null && !!it.blobHash), 'the texts moved into the raw record');
    assert.ok(upserts <= kinds() - nonRawBefore, `only the flush's new items were indexed (${upserts} upserts, ${messages} messages)`);
    // Every hit (k = 50) with the same score (ties may come in another order: a rebuild numbers documents anew).
    const hitsOf = (hits: { id: string; text: string; score: number }[]) => hits.map((h) => `${h.score.toFixed(6)} ${h.id} ${h.text}`).sort();
    const queries = ['heron pipeline invoices ledger', 'heron-3 nightly batch', 'Noted heron runs nightly'];
    const before: string[][] = [];
    for (const q of queries) before.push(hitsOf(await t.engine.search(q, { project: 'alpha' }, 50)));
    assert.ok(before.every((hits) => hits.some((h) => / heron/i.test(h))), 'the flushed messages are found by their text');
    await t.engine.close();
    rmSync(idxFile(t), { force: true });
    t.engine = await MemoryEngine.open({ storeDir: t.storeDir, vaultDir: t.vaultDir, clock: t.clock, logger: t.logger });
    assert.equal(t.engine.indexOpen.mode, 'rebuilt');
    for (const [i, q] of queries.entries()) assert.deepEqual(hitsOf(await t.engine.search(q, { project: 'alpha' }, 50)), before[i], q);
  });

  it('catches up on items written after the index was saved (only those are re-read)', async () => {
    await seed(t, 2);
    t.engine.persistIndex('idle');
    await t.engine.recordTurn(turn({ conversation: 'late', project: 'alpha', user: 'The zeppelin dashboard moved to Grafana Cloud last Tuesday for the whole team.' }));
    await t.engine.flush();
    // A crash: the store is not compacted and the index is not saved again.
    internals(t.engine).store.dispose();
    t.engine = await MemoryEngine.open({ storeDir: t.storeDir, vaultDir: t.vaultDir, clock: t.clock, logger: t.logger });
    assert.equal(t.engine.indexOpen.mode, 'loaded');
    assert.ok(t.engine.indexOpen.caughtUp > 0);
    const hits = await t.engine.search('zeppelin dashboard Grafana', { project: 'alpha' });
    assert.ok(hits.some((h) => /zeppelin/.test(h.text)), 'the late turn is searchable');
    assert.ok((await t.engine.search('kestrel Kafka', { project: 'alpha' })).length > 0, 'the saved items still are');
  });

  it('rebuilds from the store when the index file is damaged, and never fails to open', async () => {
    await seed(t);
    await t.engine.close();
    const file = idxFile(t);
    assert.ok(existsSync(file));
    const bytes = readFileSync(file);
    bytes[bytes.length >> 1] ^= 0xff;
    writeFileSync(file, bytes);
    writeFileSync(path.join(t.storeDir, 'vectors', 'hash-v1-384.bin'), 'not a vector file');
    t.engine = await MemoryEngine.open({ storeDir: t.storeDir, vaultDir: t.vaultDir, clock: t.clock, logger: t.logger });
    assert.equal(t.engine.indexOpen.mode, 'rebuilt');
    assert.ok(t.logger.lines.some((l) => l.event === 'index.load_failed' && l.fields?.error === 'E_CORRUPT'));
    assert.ok(t.logger.lines.some((l) => l.event === 'vectors.load_failed'));
    assert.ok((await t.engine.search('kestrel Kafka orders', { project: 'alpha' })).length > 0);
  });

  it('rebuilds when the journal no longer holds the records after the saved sequence', async () => {
    await seed(t, 1);
    t.engine.persistIndex('idle');
    const stale = readFileSync(idxFile(t));
    await t.engine.recordTurn(turn({ conversation: 'late', project: 'alpha', user: 'The albatross cache is flushed every night at two by the cron job.' }));
    await t.engine.close(); // compacts the journal and saves a newer index
    writeFileSync(idxFile(t), stale);
    t.engine = await MemoryEngine.open({ storeDir: t.storeDir, vaultDir: t.vaultDir, clock: t.clock, logger: t.logger });
    assert.equal(t.engine.indexOpen.mode, 'rebuilt');
    assert.ok((await t.engine.search('albatross cache cron', { project: 'alpha' })).length > 0);
  });

  it('loads an index image and a vector file of the earlier formats without a rebuild, and rewrites them once', async () => {
    await seed(t, 5);
    const before = (await t.engine.search('kestrel Kafka orders topic', { project: 'alpha' })).map((h) => h.id);
    const vectors = internals(t.engine).index.vectorCount;
    await t.engine.close();
    const vecFile = path.join(t.storeDir, 'vectors', 'hash-v1-384.bin');
    writeFileSync(idxFile(t), toV1(readFileSync(idxFile(t))));
    writeFileSync(vecFile, toV3(readFileSync(vecFile), 384));
    await t.reopen();
    assert.equal(t.engine.indexOpen.mode, 'loaded');
    assert.equal(t.engine.indexOpen.adoptedVectors, vectors);
    assert.deepEqual((await t.engine.search('kestrel Kafka orders topic', { project: 'alpha' })).map((h) => h.id), before);
    await t.engine.close();
    assert.equal(readFileSync(idxFile(t)).readInt32LE(4), 2, 'the image is rewritten in version 2');
    assert.equal(keywordFormatOf(readFileSync(idxFile(t))), 2, 'its keyword index in format 2');
    assert.equal(readFileSync(vecFile).readInt32LE(4), 4, 'the vector file is rewritten in format 4');
    await t.reopen();
    assert.equal(t.engine.indexOpen.mode, 'loaded');
    assert.equal(t.engine.indexOpen.adoptedVectors, vectors);
  });

  it('loads an image whose keyword index is of format 1 ([ordinal, tf] pairs) without a rebuild, and rewrites it once', async () => {
    await seed(t, 5);
    const queries = ['kestrel Kafka orders topic', 'albatross retries', 'kestrel-3 retries'];
    const before = await Promise.all(queries.map(async (q) => (await t.engine.search(q, { project: 'alpha' })).map((h) => [h.id, h.score])));
    await t.engine.close();
    const current = readFileSync(idxFile(t));
    assert.equal(keywordFormatOf(current), 2);
    writeFileSync(idxFile(t), withKeywordV1(current));
    await t.reopen();
    assert.equal(t.engine.indexOpen.mode, 'loaded');
    const after = await Promise.all(queries.map(async (q) => (await t.engine.search(q, { project: 'alpha' })).map((h) => [h.id, h.score])));
    assert.deepEqual(after, before);
    await t.engine.close();
    const rewritten = readFileSync(idxFile(t));
    assert.equal(keywordFormatOf(rewritten), 2, 'rewritten in format 2');
    assert.ok(keywordPartOf(rewritten).equals(keywordPartOf(current)), 'the same keyword index as before');
    await t.reopen();
    assert.equal(t.engine.indexOpen.mode, 'loaded');
  });

  it('drops items deleted while the index file was current', async () => {
    await seed(t, 2);
    const victim = (await t.engine.search('kestrel-0 retries', { project: 'alpha' }))[0]!;
    t.engine.persistIndex('idle');
    await t.engine.forget(victim.id);
    internals(t.engine).store.dispose();
    t.engine = await MemoryEngine.open({ storeDir: t.storeDir, vaultDir: t.vaultDir, clock: t.clock, logger: t.logger });
    assert.equal(t.engine.indexOpen.mode, 'loaded');
    assert.equal(internals(t.engine).index.has(victim.id), false);
  });
});

describe('recall index image: saved only when it pays (engine)', function () {
  this.timeout(60_000);
  let t: TestEngine;
  afterEach(async () => { await t.cleanup(); });
  // No small-snapshot exemption: a close compacts only past compactRatio/4 × the snapshot, as in a large store.
  const largeStorePolicy = { storePolicy: { smallSnapshotBytes: 0 } };

  it('keeps the saved image when a close changed a few items and the journal still holds them; the next open catches up', async () => {
    t = await createTestEngine(largeStorePolicy);
    await seed(t);
    await t.reopen();
    assert.equal(t.engine.indexOpen.mode, 'loaded');
    const image = readFileSync(idxFile(t));
    await t.engine.recordTurn(turn({ conversation: 'late', project: 'alpha', user: 'The narwhal exporter ships metrics to Prometheus every fifteen seconds.' }));
    await t.engine.flush();
    await t.engine.search('kestrel Kafka', { project: 'alpha' });
    await t.reopen();
    assert.ok(t.logger.lines.some((l) => l.event === 'index.save_skipped' && l.fields?.why === 'close'), 'the close skipped the image');
    assert.deepEqual(readFileSync(idxFile(t)), image, 'the image on disk is the one saved before');
    assert.equal(t.engine.indexOpen.mode, 'loaded');
    assert.ok(t.engine.indexOpen.caughtUp > 0, 'the new items were re-read from the store');
    assert.ok((await t.engine.search('narwhal exporter Prometheus', { project: 'alpha' })).some((h) => /narwhal/.test(h.text)));
    assert.ok((await t.engine.search('kestrel Kafka orders', { project: 'alpha' })).length > 0);
  });

  it('recalls only count accesses: the next open re-reads nothing and the counts are kept', async () => {
    t = await createTestEngine(largeStorePolicy);
    await seed(t);
    await t.reopen();
    assert.equal(t.engine.indexOpen.mode, 'loaded');
    const hits = await t.engine.search('kestrel Kafka', { project: 'alpha' });
    assert.ok(hits.length > 0);
    await t.engine.recall({ message: 'How do the kestrel workers use Kafka?', conversation: 'ask', project: 'alpha', window: 8000 });
    await t.reopen();
    assert.ok(internals(t.engine).store.openReport.recoveredRecords > 0, 'the access counts were journaled and replayed');
    assert.ok(internals(t.engine).store.items.get(hits[0]!.id)!.accessCount >= 1);
    assert.equal(t.engine.indexOpen.mode, 'loaded');
    assert.equal(t.engine.indexOpen.caughtUp, 0, 'no item was re-read for an access count');
  });

  it('keeps the vector file when a few vectors changed; the next open adopts it and embeds the rest', async () => {
    t = await createTestEngine(largeStorePolicy);
    await seed(t);
    await t.reopen();
    const vecFile = path.join(t.storeDir, 'vectors', 'hash-v1-384.bin');
    const vectors = readFileSync(vecFile);
    const adopted = t.engine.indexOpen.adoptedVectors;
    await t.engine.recordTurn(turn({ conversation: 'late', project: 'alpha', user: 'The pelican proxy terminates TLS in front of the billing service.' }));
    await t.engine.flush();
    await t.engine.whenVectorsReady();
    const before = internals(t.engine).index.vectorCount;
    assert.ok(before > adopted, 'the new turn has vectors in memory');
    await t.reopen();
    assert.ok(t.logger.lines.some((l) => l.event === 'vectors.save_skipped' && l.fields?.why === 'close'));
    assert.deepEqual(readFileSync(vecFile), vectors, 'the vector file on disk is the one saved before');
    assert.equal(t.engine.indexOpen.adoptedVectors, adopted);
    await t.engine.whenVectorsReady();
    assert.equal(internals(t.engine).index.vectorCount, before, 'the missing vectors were made again');
    assert.equal(internals(t.engine).index.pendingVectorCount, 0);
  });

  it('rewrites the image when the close compacts the journal (the image could not catch up otherwise)', async () => {
    t = await createTestEngine(); // default policy: a small store compacts at every close
    await seed(t);
    await t.reopen();
    const image = readFileSync(idxFile(t));
    await t.engine.recordTurn(turn({ conversation: 'late', project: 'alpha', user: 'The walrus scheduler retries failed jobs three times with backoff.' }));
    await t.engine.flush();
    await t.reopen();
    assert.notDeepEqual(readFileSync(idxFile(t)), image);
    assert.equal(t.engine.indexOpen.mode, 'loaded');
    assert.equal(t.engine.indexOpen.caughtUp, 0);
    assert.ok((await t.engine.search('walrus scheduler retries', { project: 'alpha' })).some((h) => /walrus/.test(h.text)));
  });

  it('rewrites the image once more items changed than a re-read at open should cost', async () => {
    t = await createTestEngine(largeStorePolicy);
    await seed(t);
    await t.reopen();
    const image = readFileSync(idxFile(t));
    const msgs = Array.from({ length: 1_100 }, (_, i) => ({ conversation: `bulk-${i % 20}`, role: 'user' as const, text: `Bulk message ${i} about the heron pipeline stage ${i}.`, at: 1_000 + i, project: 'alpha' }));
    await t.engine.importMessages(msgs);
    await t.engine.flush();
    await t.reopen();
    assert.ok(!t.logger.lines.some((l) => l.event === 'index.save_skipped' || l.event === 'vectors.save_skipped'));
    assert.notDeepEqual(readFileSync(idxFile(t)), image);
    assert.equal(t.engine.indexOpen.caughtUp, 0);
  });

  it('always rewrites the image on a forget: the forgotten item leaves the file at once', async () => {
    t = await createTestEngine(largeStorePolicy);
    await seed(t, 2);
    await t.reopen();
    const victim = (await t.engine.search('kestrel-0 retries', { project: 'alpha' }))[0]!;
    const image = readFileSync(idxFile(t));
    await t.engine.forget(victim.id);
    assert.notDeepEqual(readFileSync(idxFile(t)), image);
    internals(t.engine).store.dispose(); // a crash right after: the image alone must not know the item
    const restored = new RecallIndex(new HashEmbedder(), nullLogger);
    restored.restore(readFileSync(idxFile(t)));
    assert.equal(restored.has(victim.id), false);
  });
});

describe('recall index vectors of unchanged items', () => {
  const item = (over: Partial<IndexedItem> = {}): IndexedItem => ({
    id: 'fa:1', kind: 'fact', text: 'the build uses pnpm workspaces', project: 'alpha', projectType: null, conversation: null,
    trust: 'owner', untrusted: false, secret: false, pinned: false, role: null, created: 1, importance: null, invalidated: false,
    archived: false, expiresAt: null, ...over,
  });

  it('keeps the vector when text and partition are unchanged, and re-queues it when either changes', async () => {
    const ix = new RecallIndex(new HashEmbedder(), nullLogger);
    ix.upsert(item());
    await ix.embedPending();
    assert.ok(ix.hasVector('fa:1'));
    ix.upsert(item({ importance: 0.9 }));
    assert.equal(ix.pendingVectorCount, 0);
    assert.ok(ix.hasVector('fa:1'));
    ix.upsert(item({ text: 'the build uses npm workspaces' }));
    assert.equal(ix.pendingVectorCount, 1);
    await ix.embedPending();
    ix.upsert(item({ text: 'the build uses npm workspaces', project: 'beta' }));
    assert.equal(ix.pendingVectorCount, 1, 'another partition needs its own row');
  });

  it('restores an image byte for byte and refuses a damaged one with E_CORRUPT', () => {
    const ix = new RecallIndex(new HashEmbedder(), nullLogger);
    ix.upsert(item());
    ix.upsert(item({ id: 'rw:1', kind: 'raw', text: 'first message about pnpm', conversation: 'c', role: 'user', created: 1 }));
    ix.upsert(item({ id: 'rw:2', kind: 'raw', text: 'second message about caching', conversation: 'c', role: 'assistant', created: 2 }));
    const img = ix.serialize(42);
    const back = new RecallIndex(new HashEmbedder(), nullLogger);
    assert.deepEqual(back.restore(img), { seq: 42, docs: 3 });
    assert.deepEqual(back.serialize(42), img);
    assert.deepEqual(back.linksOf(back.keyword.has(1) ? 1 : 2).length, 1);
    const bad = Buffer.from(img);
    bad[20] ^= 1;
    assert.throws(() => back.restore(bad), { code: 'E_CORRUPT' });
    assert.equal(back.size, 0, 'a failed restore leaves an empty index');
  });
});

describe('embedder lifecycle (engine)', function () {
  this.timeout(120_000);
  let t: TestEngine;
  let models: string;
  before(() => {
    models = mkdtempSync(path.join(tmpdir(), 'tiny-e5-engine-'));
    makeTinyE5(models);
  });
  after(() => rmSync(models, { recursive: true, force: true }));
  beforeEach(async () => { t = await createTestEngine(); });
  afterEach(async () => { await t.cleanup(); });

  it('switches to e5 when its weights are present, re-embeds everything in the background, and reports it', async () => {
    await seed(t);
    const hashVectors = internals(t.engine).index.vectorCount;
    const r = await t.engine.loadEmbedder({ modelsDir: models, modelId: TINY_E5_MODEL_ID });
    assert.equal(r.reason, 'model-loaded');
    const st = t.engine.status();
    assert.equal(st.embedder.id, internals(t.engine).index.embedderId);
    assert.notEqual(st.embedder.id, 'hash-v1-384');
    assert.equal(st.embedder.model, TINY_E5_MODEL_ID);
    assert.equal(st.embedder.reason, 'model-loaded');
    await t.engine.whenVectorsReady();
    assert.equal(t.engine.status().embedder.vectors, `${hashVectors} of ${hashVectors}`);
    assert.ok((await t.engine.search('kestrel Kafka orders', { project: 'alpha' })).length > 0);
    // Back to hash: the saved hash vectors are adopted, nothing is re-embedded.
    await t.engine.useEmbedder(new HashEmbedder(), { reason: 'configured' });
    const sw = t.logger.lines.filter((l) => l.event === 'embedder.switched').pop();
    assert.equal(sw?.fields?.adopted, hashVectors);
    // And the e5 file is used again after a restart with e5.
    await t.engine.loadEmbedder({ modelsDir: models, modelId: TINY_E5_MODEL_ID });
    const again = t.logger.lines.filter((l) => l.event === 'embedder.switched').pop();
    assert.equal(again?.fields?.adopted, hashVectors);
  });

  it('falls back to the hash embedder when no weights are present, and says why', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'no-models-'));
    try {
      await seed(t, 1);
      const r = await t.engine.loadEmbedder({ modelsDir: empty });
      assert.equal(r.reason, 'model-missing');
      assert.equal(r.id, 'hash-v1-384');
      const st = t.engine.status();
      assert.equal(st.embedder.id, 'hash-v1-384');
      assert.equal(st.embedder.model, null);
      assert.equal(st.embedder.reason, 'model-missing');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
