import { strict as assert } from 'node:assert';
import { isMemoryError } from '../../../src/engine/errors';
import { KeywordIndex, queryTerms } from '../../../src/engine/recall/keywordIndex';
import { keywordToV1 } from './oldFormats';

function build(docs: string[]): KeywordIndex {
  const idx = new KeywordIndex();
  docs.forEach((d, i) => idx.add(i, d));
  return idx;
}

const search = (idx: KeywordIndex, q: string, k = 5) => idx.search(queryTerms(q).terms, k);

describe('KeywordIndex (BM25)', () => {
  it('refuses bad doc ids and non-string text with E_BAD_INPUT and keeps its content', () => {
    const idx = build(['the first doc']);
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 31]) {
      assert.throws(() => idx.add(bad, 'x'), (e: unknown) => isMemoryError(e, 'E_BAD_INPUT'));
    }
    assert.throws(() => idx.add(5, undefined as unknown as string), (e: unknown) => isMemoryError(e, 'E_BAD_INPUT'));
    assert.equal(idx.size, 1);
    assert.equal(search(idx, 'first')[0]?.docId, 0);
  });

  it('ranks the doc with the exact vocabulary ("httpx ReadTimeout") first', () => {
    const idx = build([
      'The request timed out while reading from the server',
      'We switched from requests to httpx last week',
      'httpx raised ReadTimeout on the upload endpoint after 30 s',
      'Reading list: timeouts in distributed systems',
      'The server reads the config on start',
    ]);
    const hits = search(idx, 'httpx ReadTimeout');
    assert.equal(hits[0]!.docId, 2);
    assert.ok(hits[0]!.score > hits[1]!.score);
  });

  it('finds inflected forms through the stemmer', () => {
    const idx = build(['Configuring timeouts for uploads', 'unrelated text about cooking']);
    assert.equal(search(idx, 'configure timeout upload')[0]!.docId, 0);
  });

  it('ignores the query language’s function words', () => {
    const idx = build(['the the the the the of of of', 'paris trip plans']);
    assert.deepEqual(search(idx, 'the plans of the trip').map((h) => h.docId), [1]);
  });

  it('finds German, Hungarian, Spanish and French text by its words', () => {
    const idx = build([
      'Die Einstellungen des Servers wurden geändert',
      'A szerver beállításai megváltoztak tegnap',
      'La configuración del servidor cambió ayer',
      'Les paramètres du serveur ont changé hier',
    ]);
    assert.equal(search(idx, 'Einstellungen Server')[0]!.docId, 0);
    assert.equal(search(idx, 'szerver beállításai')[0]!.docId, 1);
    assert.equal(search(idx, 'configuración servidor')[0]!.docId, 2);
    assert.equal(search(idx, 'paramètres serveur')[0]!.docId, 3);
  });

  it('applies the filter and k', () => {
    const idx = build(['apple pie', 'apple tart', 'apple juice', 'pear']);
    const hits = idx.search(queryTerms('apple').terms, 2, (id) => id !== 0);
    assert.equal(hits.length, 2);
    assert.ok(hits.every((h) => h.docId !== 0));
  });

  it('removes and replaces documents', () => {
    const idx = build(['alpha beta', 'gamma delta']);
    assert.equal(idx.remove(0), true);
    assert.equal(idx.remove(0), false);
    assert.deepEqual(search(idx, 'alpha'), []);
    idx.add(1, 'alpha now');
    assert.deepEqual(search(idx, 'gamma'), []);
    assert.equal(search(idx, 'alpha')[0]!.docId, 1);
    assert.equal(idx.size, 1);
  });

  it('keeps results right after compaction of many removed docs', () => {
    const idx = new KeywordIndex();
    for (let i = 0; i < 5000; i++) idx.add(i, `item number${i} ${i % 2 ? 'odd' : 'even'}`);
    for (let i = 0; i < 5000; i += 2) idx.remove(i);
    idx.compact();
    assert.equal(idx.size, 2500);
    assert.equal(idx.search(['number4001'], 5)[0]!.docId, 4001);
    assert.deepEqual(idx.search(['number4000'], 5), []);
    assert.ok(idx.search(queryTerms('odd').terms, 3000).every((h) => h.docId % 2 === 1));
  });

  it('normalises scores into [0, 1] on request', () => {
    const idx = build(['httpx ReadTimeout upload', 'httpx client', 'other']);
    const q = queryTerms('httpx ReadTimeout').terms;
    const max = idx.search(q, 5, { normalise: 'max' });
    assert.equal(max[0]!.score, 1);
    const cov = idx.search(q, 5, { normalise: 'coverage' });
    assert.equal(cov[0]!.docId, 0);
    for (const h of [...max, ...cov]) assert.ok(h.score > 0 && h.score <= 1);
    assert.ok(cov[1]!.score < cov[0]!.score);
  });

  it('round-trips through serialize/deserialize with identical results', () => {
    const docs = Array.from({ length: 300 }, (_, i) => `note ${i} about topic${i % 17} with Größe ${i % 5 ? 'httpx' : 'requests'}`);
    const idx = build(docs);
    idx.remove(10);
    const copy = KeywordIndex.deserialize(idx.serialize());
    for (const q of ['topic3 httpx', 'größe', 'note requests']) assert.deepEqual(search(copy, q, 10), search(idx, q, 10));
    copy.add(999, 'fresh topic3 entry');
    assert.equal(search(copy, 'fresh')[0]!.docId, 999);
  });

  it('refuses a corrupt image with E_CORRUPT', () => {
    const img = build(['a b c']).serialize();
    assert.throws(() => KeywordIndex.deserialize(img.subarray(0, img.length - 4)), (e: unknown) => isMemoryError(e, 'E_CORRUPT'));
    assert.throws(() => KeywordIndex.deserialize(Buffer.from('not an index at all, sorry!!!!!!!!')), (e: unknown) => isMemoryError(e, 'E_CORRUPT'));
  });

  it('counts a term at most 31 times in one doc (packed postings), and all counts below exactly', () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `filler${String.fromCharCode(97 + (i % 26), 97 + Math.floor(i / 26))}`).join(' '); // no digits: the analyser splits them off
    // Same length (40 terms), so only the count of "kestrel" differs.
    const idx = new KeywordIndex();
    [`${'kestrel '.repeat(40)}`, `${'kestrel '.repeat(31)}${filler(9)}`, `${'kestrel '.repeat(30)}${filler(10)}`, `kestrel ${filler(39)}`].forEach((d, i) => idx.add(i, d, 'en'));
    const hits = idx.search(['kestrel'], 4);
    const score = (d: number) => hits.find((h) => h.docId === d)!.score;
    assert.equal(score(0), score(1), 'tf 40 counts as 31');
    assert.ok(score(1) > score(2) && score(2) > score(3), 'below 31 every count tells');
    const copy = KeywordIndex.deserialize(idx.serialize());
    assert.deepEqual(copy.search(['kestrel'], 4), hits);
  });

  it('reads a format 1 image ([ordinal, tf] pairs), searches as before and writes format 2', () => {
    const docs = Array.from({ length: 400 }, (_, i) => `note ${i} about topic${i % 13} ${'again '.repeat(i % 40)}${i % 3 ? 'httpx' : 'requests'}`);
    const idx = build(docs);
    idx.remove(7);
    const v2 = idx.serialize();
    const v1 = keywordToV1(v2);
    assert.equal(v1.readInt32LE(4), 1);
    assert.ok(v1.length > v2.length);
    const old = KeywordIndex.deserialize(v1);
    assert.equal(old.restoredOld, true);
    assert.equal(KeywordIndex.deserialize(v2).restoredOld, false);
    for (const q of ['topic3 httpx', 'again requests', 'note 12']) assert.deepEqual(search(old, q, 20), search(idx, q, 20));
    assert.ok(old.serialize().equals(v2), 'the same image in format 2');
    old.add(5000, 'fresh topic3 entry');
    assert.equal(search(old, 'fresh topic3')[0]!.docId, 5000);
    const bad = Buffer.from(v1);
    bad.writeInt32LE(16, 16); // postings length no longer matches the file
    assert.throws(() => KeywordIndex.deserialize(bad), (e: unknown) => isMemoryError(e, 'E_CORRUPT'));
  });

  it('refuses a new doc with E_TOO_LARGE when every ordinal is live, keeps what it holds, and still takes replacements', () => {
    const idx = new KeywordIndex({ maxOrdinals: 4 });
    for (let i = 0; i < 4; i++) idx.add(i, `doc${i} shared`);
    assert.throws(() => idx.add(9, 'doc9 shared'), (e: unknown) => isMemoryError(e, 'E_TOO_LARGE'));
    assert.equal(idx.size, 4);
    assert.equal(search(idx, 'shared', 10).length, 4);
    for (let r = 0; r < 10; r++) idx.add(2, `doc2 again${r} shared`); // each replacement needs a fresh ordinal
    assert.equal(search(idx, 'again9')[0]?.docId, 2);
    assert.deepEqual(search(idx, 'again8'), []);
    idx.remove(0);
    idx.add(9, 'doc9 shared');
    assert.deepEqual(search(idx, 'shared', 10).map((h) => h.docId).sort(), [1, 2, 3, 9]);
  });

  it('returns nothing for an empty index or a query of unknown words', () => {
    assert.deepEqual(search(new KeywordIndex(), 'x'), []);
    assert.deepEqual(search(build(['a doc']), 'zzz'), []);
  });
});
