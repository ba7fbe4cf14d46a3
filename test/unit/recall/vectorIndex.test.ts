import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normalizeInPlace } from '../../../src/engine/embed/embedder';
import { isMemoryError } from '../../../src/engine/errors';
import { createInt8Scanner, releasedMemories } from '../../../src/engine/recall/int8Scan';
import { partitionLabel, partitionsFor, VectorIndex } from '../../../src/engine/recall/vectorIndex';

const D = 16;
function vec(seed: number): Float32Array {
  const v = new Float32Array(D);
  let s = seed * 7919 + 1;
  for (let i = 0; i < D; i++) { s = (s * 48271) % 2147483647; v[i] = s / 2147483647 - 0.5; }
  return normalizeInPlace(v);
}

describe('VectorIndex', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'vecidx-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses vectors of the wrong width, bad ids and non-finite values', () => {
    const idx = new VectorIndex('hash-v1-16', D);
    assert.throws(() => idx.upsert(1, 'global', new Float32Array(8)), (e: unknown) => isMemoryError(e, 'E_BAD_INPUT'));
    assert.throws(() => idx.upsert(-1, 'global', vec(1)), (e: unknown) => isMemoryError(e, 'E_BAD_INPUT'));
    const nan = vec(1); nan[3] = Number.NaN;
    assert.throws(() => idx.upsert(1, 'global', nan), (e: unknown) => isMemoryError(e, 'E_BAD_INPUT'));
    assert.throws(() => new VectorIndex('../evil', D), (e: unknown) => isMemoryError(e, 'E_BAD_INPUT'));
    assert.equal(idx.size, 0);
  });

  it('hands a released index\'s memory to the next one made in the process, zeroed; the released index is empty', () => {
    const held: unknown[] = [];
    while (releasedMemories() > 0) held.push(createInt8Scanner(D, 1)); // what earlier tests' closed engines left
    const first = createInt8Scanner(D, 4096);
    if (!first) return; // no WebAssembly SIMD here: plain-JS rows, nothing to reuse
    first.setRow(7, new Int8Array(D).fill(5));
    const buffer = first.bytes.buffer;
    first.release();
    assert.equal(first.bytes.length, 0);
    const next = createInt8Scanner(D, 16)!;
    assert.ok(next.bytes.buffer === buffer, 'the released memory is taken, not a new one');
    assert.ok(next.bytes.every((b) => b === 0), 'as zeroed as a new memory');
    next.release();
    const bigger = createInt8Scanner(D, 100_000)!; // more than the released memory holds: it grows
    assert.ok(bigger.bytes.length >= bigger.rowsOffset + 100_000 * D);
    assert.ok(bigger.bytes.every((b) => b === 0));
    const biggerBuffer = bigger.bytes.buffer;
    bigger.release();
    assert.ok(createInt8Scanner(D, 1)!.bytes.buffer === biggerBuffer, 'taken back (and kept: the list is empty now)');
    const sizes = [100, 50_000, 2_000].map((rows) => createInt8Scanner(D, rows)!);
    const buffers = sizes.map((x) => x.bytes.buffer);
    for (const x of sizes) x.release();
    const taken = [1, 1, 1, 1].map(() => createInt8Scanner(D, 1)!.bytes.buffer);
    assert.ok(taken[0] === buffers[1], 'the largest released memory first');
    assert.ok(new Set(taken.slice(0, 3)).size === 3 && taken.slice(0, 3).every((b) => buffers.includes(b)), 'each released memory is taken once');
    assert.ok(!buffers.includes(taken[3]!), 'then new ones');

    const old = new VectorIndex('hash-v1-16', D);
    for (let i = 0; i < 3000; i++) old.upsert(i, i % 2 ? 'global' : 'p:x', vec(i));
    old.release();
    assert.equal(old.size, 0);
    assert.deepEqual(old.search(vec(1), ['global', 'p:x'], 3), []);
    const idx = new VectorIndex('hash-v1-16', D); // on the released partitions' memory
    for (let i = 0; i < 2000; i++) idx.upsert(i + 10_000, 'global', vec(i + 77));
    for (const probe of [0, 999, 1999]) {
      const hits = idx.search(vec(probe + 77), ['global'], 1);
      assert.equal(hits[0]!.docId, probe + 10_000);
      assert.ok(Math.abs(hits[0]!.score - 1) < 1e-2);
    }
    assert.deepEqual(idx.search(vec(1), ['p:x'], 3), [], 'nothing of the released index shows through');
  });

  it('finds the nearest vector by dot product', () => {
    const idx = new VectorIndex('hash-v1-16', D);
    for (let i = 0; i < 100; i++) idx.upsert(i, 'global', vec(i));
    const hits = idx.search(vec(42), ['global'], 3);
    assert.equal(hits[0]!.docId, 42);
    assert.ok(Math.abs(hits[0]!.score - 1) < 1e-2, 'int8 rows: the score carries only the row rounding error');
    assert.ok(hits[0]!.score >= hits[1]!.score && hits[1]!.score >= hits[2]!.score);
  });

  it('isolates scopes: a query only sees the partitions it names', () => {
    const idx = new VectorIndex('hash-v1-16', D);
    idx.upsert(1, partitionLabel(null, null), vec(1));
    idx.upsert(2, partitionLabel('alpha', null), vec(2));
    idx.upsert(3, partitionLabel('beta', null), vec(3));
    idx.upsert(4, partitionLabel(null, 'python'), vec(4));
    const seen = (scope: { project?: string; projectType?: string }) =>
      new Set([1, 2, 3, 4].flatMap((i) => idx.search(vec(i), partitionsFor(scope), 10).map((h) => h.docId)));
    assert.deepEqual([...seen({ project: 'alpha', projectType: 'python' })].sort(), [1, 2, 4]);
    assert.deepEqual([...seen({ project: 'beta' })].sort(), [1, 3]);
    assert.deepEqual([...seen({})], [1]);
  });

  it('moves a doc between partitions on upsert and removes it cleanly', () => {
    const idx = new VectorIndex('hash-v1-16', D);
    for (let i = 0; i < 10; i++) idx.upsert(i, 'global', vec(i));
    idx.upsert(3, 'p:alpha', vec(3));
    assert.equal(idx.countIn('global'), 9);
    assert.equal(idx.search(vec(3), ['global'], 1)[0]!.docId !== 3, true);
    assert.equal(idx.remove(0), true);
    assert.equal(idx.remove(0), false);
    assert.equal(idx.search(vec(9), ['global'], 1)[0]!.docId, 9, 'the row moved into the hole still matches');
    assert.deepEqual(idx.partitions().sort(), ['global', 'p:alpha']);
  });

  it('gives the same top hits from its int8 rows as the exact float32 scan on a large partition', () => {
    const dims = 64;
    const rnd = (seed: number) => { const v = new Float32Array(dims); let x = seed * 2654435761 % 4294967296; for (let i = 0; i < dims; i++) { x = (x * 1664525 + 1013904223) % 4294967296; v[i] = x / 4294967296 - 0.5; } return normalizeInPlace(v); };
    const fast = new VectorIndex('hash-v1-64', dims);
    const exact = new VectorIndex('hash-v1-64', dims, { int8: false });
    for (let i = 0; i < 10_000; i++) { fast.upsert(i, 'global', rnd(i)); exact.upsert(i, 'global', rnd(i)); }
    for (let i = 0; i < 3000; i += 7) { fast.remove(i); exact.remove(i); }
    for (const q of [5, 777, 9999, 123456]) {
      const a = fast.search(rnd(q), ['global'], 10), b = exact.search(rnd(q), ['global'], 10);
      // The int8 row's rounding (~1e-3 in cosine) may only swap near-ties: the top hit and the set agree.
      assert.equal(a[0]!.docId, b[0]!.docId);
      const common = a.filter((h) => b.some((x) => x.docId === h.docId)).length;
      assert.ok(common >= 9, `top-10 overlap ${common}`);
      a.forEach((h, i) => assert.ok(Math.abs(h.score - b[i]!.score) < 1e-2));
    }
    // A file written without the SIMD copy loads into a SIMD index with the same answers.
    exact.save(join(dir, 'exact.bin'));
    const loaded = VectorIndex.load(join(dir, 'exact.bin'), 'hash-v1-64', dims);
    assert.deepEqual(loaded.search(rnd(777), ['global'], 10).map((h) => h.docId), exact.search(rnd(777), ['global'], 10).map((h) => h.docId));
    // A filter that rejects almost everything still returns the true best allowed docs.
    const onlyFew = (id: number) => id % 1000 === 1;
    assert.deepEqual(fast.search(rnd(5), ['global'], 3, onlyFew).map((h) => h.docId), exact.search(rnd(5), ['global'], 3, onlyFew).map((h) => h.docId));
  });

  it('applies the filter and the minimum score', () => {
    const idx = new VectorIndex('hash-v1-16', D);
    for (let i = 0; i < 50; i++) idx.upsert(i, 'global', vec(i));
    assert.ok(idx.search(vec(5), ['global'], 5, (id) => id !== 5).every((h) => h.docId !== 5));
    assert.deepEqual(idx.search(vec(5), ['global'], 5, undefined, 0.999).map((h) => h.docId), [5]);
  });

  it('round-trips through its file, written atomically under <embedder-id>.bin', () => {
    const idx = new VectorIndex('hash-v1-16', D);
    for (let i = 0; i < 300; i++) idx.upsert(i * 3, i % 3 ? 'global' : 'p:alpha', vec(i));
    const file = idx.fileIn(join(dir, 'vectors'));
    assert.ok(file.endsWith(join('vectors', 'hash-v1-16.bin')));
    idx.save(file);
    assert.deepEqual(readdirSync(join(dir, 'vectors')), ['hash-v1-16.bin'], 'no temp file left behind');
    const back = VectorIndex.load(file, 'hash-v1-16', D);
    assert.equal(back.size, 300);
    for (const q of [1, 100, 299]) {
      assert.deepEqual(back.search(vec(q), ['global', 'p:alpha'], 5), idx.search(vec(q), ['global', 'p:alpha'], 5));
    }
    assert.deepEqual(back.get(3), idx.get(3));
  });

  it('loads a file into an exact index and keeps the int8 rows small', () => {
    const idx = new VectorIndex('hash-v1-16', D);
    for (let i = 0; i < 200; i++) idx.upsert(i, 'global', vec(i));
    const file = join(dir, 'v.bin');
    idx.save(file);
    assert.equal(readFileSync(file).length < 200 * (12 + D) + 4096, true, 'rows are int8 only on disk');
    const exact = VectorIndex.load(file, 'hash-v1-16', D, { int8: false });
    assert.equal(exact.size, 200);
    const v = exact.get(7)!;
    const orig = vec(7);
    for (let i = 0; i < D; i++) assert.ok(Math.abs(v[i]! - orig[i]!) < 0.01);
    assert.equal(exact.search(vec(7), ['global'], 1)[0]!.docId, 7);
  });

  it('refuses a file of another embedder id or width', () => {
    const idx = new VectorIndex('hash-v1-16', D);
    idx.upsert(1, 'global', vec(1));
    const file = join(dir, 'v.bin');
    idx.save(file);
    assert.throws(() => VectorIndex.load(file, 'e5-small-q8', D), (e: unknown) => isMemoryError(e, 'E_REFUSED'));
    assert.throws(() => VectorIndex.load(file, 'hash-v1-16', 32), (e: unknown) => isMemoryError(e, 'E_REFUSED'));
    assert.ok(existsSync(file), 'the refused file is left alone');
  });

  it('reports a truncated or foreign file as E_CORRUPT', () => {
    const file = join(dir, 'bad.bin');
    writeFileSync(file, Buffer.from('garbage garbage garbage'));
    assert.throws(() => VectorIndex.load(file, 'hash-v1-16', D), (e: unknown) => isMemoryError(e, 'E_CORRUPT'));
    const idx = new VectorIndex('hash-v1-16', D);
    idx.upsert(1, 'global', vec(1));
    idx.save(file);
    writeFileSync(file, readFileSync(file).subarray(0, -5));
    assert.throws(() => VectorIndex.load(file, 'hash-v1-16', D), (e: unknown) => isMemoryError(e, 'E_CORRUPT'));
  });
});
