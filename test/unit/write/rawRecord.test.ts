import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { MemoryEngine } from '../../../src/engine/engine';
import type { ImportMessage } from '../../../src/engine/write/turnWriter';
import { createTestEngine, turn, type TestEngine } from '../engine/builders';
import { internals } from '../../../src/engine/internals';
import { loadSqlJs } from '../../../src/engine/store/sqlWasm';

interface LocomoSample { sample_id: string; speaker_a: string; sessions: { id: number | string; date_time: string; turns: { speaker: string; text: string }[] }[] }

/** The LoCoMo dev set beside the checkout (../shared/bench-data), if this machine has it. */
function locomoFile(): string | undefined {
  let dir = __dirname;
  for (let i = 0; i < 7; i++) {
    const f = path.join(dir, '..', 'shared', 'bench-data', 'locomo-dev.json');
    if (existsSync(f)) return f;
    dir = path.dirname(dir);
  }
  return undefined;
}

function chunkTexts(engine: MemoryEngine): string[] {
  const out: string[] = [];
  internals(engine).store.rawBlobs.forEachChunk((c) => { out.push(...c.texts); });
  return out;
}

describe('raw record (chunked, content-addressed)', () => {
  let t: TestEngine;
  beforeEach(async () => { t = await createTestEngine({ syncVault: false }); });
  afterEach(async () => { await t.cleanup(); });

  it('stores a flush in one compressed chunk and reads every message back verbatim', async () => {
    const ids: string[] = [];
    const topics = ['the release train moved to Thursday for the Ünïcode 🙂 regression pass', 'Postgres vacuum settings on the reporting replica',
      'the onboarding checklist for new contractors in Berlin', 'rotating the signing certificate before it expires in May',
      'why the nightly export to S3 doubled in size last week', 'the font licence for the marketing site redesign'];
    for (const [i, topic] of topics.entries()) ids.push(...(await t.engine.recordTurn(turn({ user: `Message ${i}: can you summarise what we know about ${topic}?` }))).ids);
    await t.engine.flush();
    const st = internals(t.engine).store.rawBlobs.stats();
    assert.equal(st.chunks, 1, 'one chunk for the flush');
    assert.ok(ids.length >= 6);
    assert.equal(st.blobs, ids.length);
    for (const id of ids) {
      const it = internals(t.engine).store.items.get(id)!;
      assert.equal(it.text, null, 'the inline text is dropped after the flush');
      assert.ok(internals(t.engine).writer.textOf(it).startsWith(it.role === 'user' ? 'Message' : 'Answer number'));
    }
  });

  it('stores a repeated message once and counts it twice, within one flush and across flushes', async () => {
    const text = 'The quarterly report is due on the first Monday of December, and finance wants it in PDF.';
    await t.engine.importMessages([
      { conversation: 'a', role: 'user', text, at: 1 },
      { conversation: 'a', role: 'user', text, at: 2 },
    ]);
    await t.engine.flush();
    await t.engine.importMessages([{ conversation: 'b', role: 'user', text, at: 3 }]);
    await t.engine.flush();
    const raws = internals(t.engine).store.items.list({ kind: 'raw' });
    assert.equal(raws.length, 3, 'every occurrence keeps its own provenance row');
    assert.equal(new Set(raws.map((r) => r.blobHash)).size, 1);
    const blob = internals(t.engine).store.rawBlobs.get(raws[0]!.blobHash!)!;
    assert.equal(blob.seen, 3);
    assert.equal(blob.text, text);
    // The totals the store keeps (schema v2 triggers; the repeats are upserts that only bump `seen`).
    const st = internals(t.engine).store.rawBlobs.stats();
    assert.deepEqual([st.blobs, st.seen, st.rawBytes], [1, 3, Buffer.byteLength(text, 'utf8')]);
    assert.equal(chunkTexts(t.engine).filter((x) => x === text).length, 1, 'the bytes are stored once');
  });

  it('merges small flushes into the newest chunk instead of one chunk per flush', async () => {
    for (let c = 0; c < 5; c++) {
      await t.engine.recordTurn(turn({ conversation: `small-${c}`, user: `Session ${c}: the staging cluster was upgraded to Kubernetes 1.31 and the ingress rules need a review.` }));
      await t.engine.flush();
    }
    const st = internals(t.engine).store.rawBlobs.stats();
    assert.equal(st.chunks, 1);
    assert.equal(st.blobs, 10);
    for (const it of internals(t.engine).store.items.list({ kind: 'raw' })) assert.notEqual(internals(t.engine).writer.textOf(it), '', `${it.id} is readable after the merges`);
  });

  it('compresses LoCoMo-sized conversations at least 2.5× after their flushes', async function () {
    const file = locomoFile();
    if (!file) this.skip();
    this.timeout(120_000);
    const samples = JSON.parse(readFileSync(file!, 'utf8')) as LocomoSample[];
    const sample = samples[0]!;
    // One conversation per LoCoMo session, flushed on its own as a chat session's end would.
    for (const s of sample.sessions) {
      const msgs: ImportMessage[] = s.turns.map((tr, i) => ({
        conversation: `${sample.sample_id}-S${s.id}`, role: tr.speaker === sample.speaker_a ? 'user' : 'assistant', text: `[${tr.speaker}] ${tr.text}`, at: 1_000 + i,
      }));
      await t.engine.importMessages(msgs);
      await t.engine.flush();
    }
    const rr = t.engine.status().rawRecord;
    assert.ok(rr.ratio !== null && rr.ratio >= 2.5, `raw record ratio ${rr.ratio} ≥ 2.5`);
    assert.ok(rr.blobs > 300);
  });

  it('purges a forgotten message from its chunk while its chunk-mates stay readable', async () => {
    const secretish = 'My home address is 12 Birch Lane, Leeds, and the spare key is under the blue flowerpot.';
    const r1 = await t.engine.recordTurn(turn({ user: secretish }));
    const r2 = await t.engine.recordTurn(turn({ user: 'The team offsite is planned for the second week of March in the Lisbon office.' }));
    await t.engine.flush();
    assert.equal(internals(t.engine).store.rawBlobs.stats().chunks, 1);
    const gen0 = (() => { let g = -1; internals(t.engine).store.rawBlobs.forEachChunk((c) => { g = c.gen; }); return g; })();
    await t.engine.forget(r1.ids[0]!);
    assert.ok(!chunkTexts(t.engine).some((x) => x.includes('Birch Lane')), 'the forgotten bytes left the chunk');
    let gen1 = -1;
    internals(t.engine).store.rawBlobs.forEachChunk((c) => { gen1 = c.gen; });
    assert.equal(gen1, gen0 + 1, 'the chunk was rewritten');
    const mate = internals(t.engine).store.items.get(r2.ids[0]!)!;
    assert.match(internals(t.engine).writer.textOf(mate), /Lisbon office/);
    const hits = await t.engine.search('Birch Lane flowerpot', {});
    assert.ok(!hits.some((h) => h.id === r1.ids[0]), 'search no longer finds it');
    // After close (compaction) and reopen the text is nowhere in the chunks either.
    await t.reopen();
    assert.ok(!chunkTexts(t.engine).some((x) => x.includes('Birch Lane')));
    assert.match(internals(t.engine).writer.textOf(internals(t.engine).store.items.get(r2.ids[0]!)!), /Lisbon office/);
  });

  it('deletes a chunk once its last live message is forgotten', async () => {
    const r = await t.engine.importMessages([{ conversation: 'solo', role: 'user', text: 'A single message that will be forgotten again right after it was flushed.', at: 5 }]);
    await t.engine.flush();
    assert.equal(internals(t.engine).store.rawBlobs.stats().chunks, 1);
    await t.engine.forget(r[0]!);
    const st = internals(t.engine).store.rawBlobs.stats();
    assert.equal(st.chunks, 0);
    assert.equal(st.blobs, 0);
    assert.equal(st.storedBytes, 0);
  });

  it('composes several forgets and puts inside one transaction', async () => {
    const texts = ['alpha message about the build cache', 'bravo message about the deploy key rotation', 'charlie message about flaky tests'];
    const hashes = await internals(t.engine).store.transaction((tx) => tx.rawBlobs.putMany(texts, 10));
    await internals(t.engine).store.transaction((tx) => {
      tx.rawBlobs.delete(hashes[0]!);
      tx.rawBlobs.delete(hashes[2]!);
      tx.rawBlobs.putMany(['delta message added in the same transaction'], 11);
    });
    const all = chunkTexts(t.engine);
    assert.ok(!all.some((x) => x.startsWith('alpha') || x.startsWith('charlie')), 'both forgotten slots are blank');
    assert.equal(internals(t.engine).store.rawBlobs.get(hashes[1]!)!.text, texts[1]);
    assert.equal(internals(t.engine).store.rawBlobs.get(hashes[0]!), undefined);
    assert.equal(internals(t.engine).store.rawBlobs.stats().blobs, 2);
  });

  it('writes the raw record and the derivation of a flush as one journal record', async () => {
    await t.engine.recordTurn(turn({ user: 'Deployment notes for the payments team:\nregion: eu-central-1\nowner: Dana' }));
    await t.engine.whenLogsWritten(); // the turn's working-block update is its own record, before the flush
    const before = internals(t.engine).store.stats().seq;
    await t.engine.flush();
    assert.equal(internals(t.engine).store.stats().seq, before + 1, 'one atomic record: a crash leaves all of it or none');
    // A crash right after: the journal alone restores chunks and rows.
    internals(t.engine).writer.dispose();
    internals(t.engine).store.dispose();
    t.engine = await MemoryEngine.open({ storeDir: t.storeDir, vaultDir: t.vaultDir, clock: t.clock, logger: t.logger, syncVault: false });
    const raw = internals(t.engine).store.items.list({ kind: 'raw' });
    assert.equal(raw.length, 2);
    for (const it of raw) assert.ok(internals(t.engine).writer.textOf(it).length > 20);
    assert.equal(t.engine.status().bufferedMessages, 0);
  });
});

/** `n` distinct messages of ~150 characters in 40-turn conversations, some of them `key: value` lines (facts), a few repeated. */
function longImport(n: number, prefix = 'c'): ImportMessage[] {
  const words = 'release train postgres replica vacuum onboarding contractor certificate export bucket font licence invoice budget meeting roadmap'.split(' ');
  const tools = ['Vim', 'Emacs', 'VS Code', 'Neovim', 'IntelliJ'];
  return Array.from({ length: n }, (_, j) => ({
    conversation: `${prefix}${Math.floor(j / 40)}`, role: j % 2 ? 'assistant' : 'user', at: 1_000 + j * 60_000,
    text: j % 97 === 5 ? 'Thanks, that helps a lot with the release planning for this quarter.' // repeated verbatim
      : j % 10 === 0 ? `Editor: ${tools[(j / 10) % tools.length]}\nOwner: ${['Dana', 'Ilse', 'Marek'][j % 3]} (${words[j % words.length]} scripts)`
        : `Message ${j}: ` + Array.from({ length: 22 }, (_, k) => words[(j * 7 + k * 3) % words.length]).join(' ') + '.',
  }));
}

describe('raw record: a long import writes it as it goes', () => {
  let t: TestEngine;
  beforeEach(async () => { t = await createTestEngine({ syncVault: false }); });
  afterEach(async () => { await t.cleanup(); });

  it('stores every message of a several-chunk import in the raw record before any flush, and the flush writes none again', async function () {
    this.timeout(120_000);
    const msgs = longImport(1_300);
    const ids = await t.engine.importMessages(msgs);
    const s = internals(t.engine).store;
    const distinct = new Set(msgs.map((m) => m.text)).size;
    assert.ok(distinct < msgs.length, 'the corpus repeats a message');
    const st = s.rawBlobs.stats();
    assert.deepEqual([st.blobs, st.seen], [distinct, msgs.length], 'stored once per distinct text, counted per message');
    for (const [k, id] of ids.entries()) {
      const it = s.items.get(id)!;
      assert.equal(it.text, null, `${id}: no text in the items row`);
      assert.ok(it.blobHash, `${id}: a content address`);
      assert.equal(internals(t.engine).writer.textOf(it), msgs[k]!.text, `${id} reads back verbatim`);
    }
    assert.equal(t.engine.status().bufferedMessages, msgs.length, 'still buffered for derivation');
    const hits = await t.engine.search('Message 777', {});
    assert.ok(hits.some((h) => h.id === ids[777]), 'indexed before the flush');
    const chunksBefore = s.rawBlobs.stats().chunks;
    await t.engine.flush();
    assert.equal(s.rawBlobs.stats().chunks, chunksBefore, 'the flush wrote no chunk');
    assert.deepEqual([s.rawBlobs.stats().blobs, s.rawBlobs.stats().seen], [distinct, msgs.length]);
    assert.equal(t.engine.status().bufferedMessages, 0);
    assert.ok(s.items.count({ kind: 'summary' }) >= 30, 'every conversation summarised');
    assert.ok(s.items.count({ kind: 'fact' }) > 0, 'facts derived from the key: value lines');
  });

  it('derives the same memory from one long import as from the same messages imported a chunk at a time', async function () {
    this.timeout(180_000);
    const msgs = longImport(1_300);
    const other = await createTestEngine({ syncVault: false });
    try {
      await t.engine.importMessages(msgs);
      for (let i = 0; i < msgs.length; i += 100) await other.engine.importMessages(msgs.slice(i, i + 100)); // one chunk per call: the flush writes the raw record
      await t.engine.flush();
      await other.engine.flush();
      const view = (e: MemoryEngine) => {
        const s = internals(e).store;
        const raw = s.items.list({ kind: 'raw' }).map((it) => [it.conversation, it.created, it.role, it.trust, it.untrusted, it.secret, it.text, internals(e).writer.textOf(it)].join('|')).sort();
        const derived = (['fact', 'summary', 'entity'] as const).map((kind) => s.items.list({ kind }).map((it) => [it.conversation, it.trust, it.untrusted, it.text, it.summary, (it.tags ?? []).join(',')].join('|')).sort());
        const chunks = chunkTexts(e).filter((x) => x !== '').sort();
        const st = s.rawBlobs.stats();
        return { raw, derived, chunks, blobs: [st.blobs, st.seen, st.rawBytes] };
      };
      const a = view(t.engine);
      const b = view(other.engine);
      assert.equal(a.raw.length, msgs.length);
      assert.deepEqual(a.raw, b.raw, 'the same messages, provenance and texts');
      assert.deepEqual(a.derived, b.derived, 'the same facts, summaries and entities');
      assert.deepEqual(a.chunks, b.chunks, 'the same raw record');
      assert.deepEqual(a.blobs, b.blobs);
    } finally {
      await other.cleanup();
    }
  });

  it('forgets a message between a long import and its flush without a trace, its chunk-mates still readable', async function () {
    this.timeout(120_000);
    const msgs = longImport(1_100);
    const ids = await t.engine.importMessages(msgs);
    const gone = 333;
    await t.engine.forget(ids[gone]!);
    await t.engine.flush();
    assert.ok(!chunkTexts(t.engine).includes(msgs[gone]!.text), 'the forgotten bytes left the chunk');
    assert.ok(!(await t.engine.search(`Message ${gone}`, {})).some((h) => h.id === ids[gone]), 'search no longer finds it');
    const s = internals(t.engine).store;
    for (const k of [gone - 1, gone + 1]) assert.equal(internals(t.engine).writer.textOf(s.items.get(ids[k]!)!), msgs[k]!.text);
    assert.equal(t.engine.status().bufferedMessages, 0);
    await t.reopen();
    assert.ok(!chunkTexts(t.engine).includes(msgs[gone]!.text));
    assert.equal(internals(t.engine).store.items.count({ kind: 'raw' }), msgs.length - 1);
  });

  it('flushes a conversation whose buffer holds live turns and a long import\'s runs together', async function () {
    this.timeout(120_000);
    const before = await t.engine.recordTurn(turn({ conversation: 'c0' }));
    const msgs = longImport(1_100);
    await t.engine.importMessages(msgs);
    const after = await t.engine.recordTurn(turn({ conversation: 'c0' }));
    const inC0 = msgs.filter((m) => m.conversation === 'c0').length + before.ids.length + after.ids.length;
    assert.equal(t.engine.status().bufferedMessages, msgs.length + before.ids.length + after.ids.length, 'an import\'s run counts its messages');
    await t.engine.flush();
    assert.equal(t.engine.status().bufferedMessages, 0);
    const s = internals(t.engine).store;
    const summary = s.items.get('gs:c0')!;
    assert.equal(summary.meta.messages, inC0, 'the summary read every message of c0, the runs and the turns');
    assert.deepEqual(new Set(s.itemSources.sourcesOf('gs:c0')), new Set(s.items.list({ kind: 'raw', conversation: 'c0' }).map((it) => it.id)));
  });

  it('keeps no raw record of a long import when the raw record is off, as a flush keeps none', async function () {
    this.timeout(120_000);
    t.engine.updateSettings({ l0Enabled: false });
    await t.engine.importMessages(longImport(1_100));
    assert.equal(internals(t.engine).store.rawBlobs.stats().blobs, 0);
    await t.engine.flush();
    assert.equal(internals(t.engine).store.rawBlobs.stats().blobs, 0);
    assert.equal(internals(t.engine).store.items.count({ kind: 'raw' }), 0, 'the messages are dropped at the flush, as before');
    assert.ok(internals(t.engine).store.items.count({ kind: 'summary' }) > 0, 'derived all the same');
  });
});

describe('raw record: the items table stays packed after flushes', () => {
  for (const [how, per] of [['a flush moves its shortened rows to the table\'s end', 400], ['a long import writes its rows without text', 2_400]] as const) it(`${how}: the snapshot is within 12 % of a vacuumed copy`, async function () {
    this.timeout(120_000);
    const t = await createTestEngine({ syncVault: false });
    try {
      // Messages of ~150 characters in 40-turn conversations, flushed as a whole (a long import, then derivation);
      // imported 400 at a time, each call is one chunk and its flush moves the text.
      const words = 'release train postgres replica vacuum onboarding contractor certificate export bucket font licence invoice budget meeting roadmap'.split(' ');
      const msgs: ImportMessage[] = Array.from({ length: 2_400 }, (_, j) => ({
        conversation: `c${Math.floor(j / 40)}`, role: j % 2 ? 'assistant' : 'user', at: 1_000 + j * 60_000,
        text: `Message ${j}: ` + Array.from({ length: 22 }, (_, k) => words[(j * 7 + k * 3) % words.length]).join(' ') + '.',
      }));
      for (let i = 0; i < msgs.length; i += per) await t.engine.importMessages(msgs.slice(i, i + per));
      await t.engine.flush();
      await t.engine.close();
      const SQL = await loadSqlJs();
      const db = new SQL.Database(readFileSync(path.join(t.storeDir, 'memory.db')));
      try {
        const pages = () => Number(db.exec('PRAGMA page_count')[0]!.values[0]![0]);
        assert.equal(Number(db.exec("SELECT count(*) FROM items WHERE kind = 'raw' AND text IS NULL AND blob_hash IS NOT NULL")[0]!.values[0]![0]), 2_400, 'every text moved');
        const live = pages();
        db.exec('VACUUM');
        assert.ok(live <= pages() * 1.12, `snapshot ${live} pages vs ${pages()} vacuumed`);
      } finally {
        db.close();
      }
    } finally {
      await t.cleanup();
    }
  });
});
