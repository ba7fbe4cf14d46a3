import { strict as assert } from 'node:assert';
import { isMemoryError } from '../../../src/engine/errors';
import { KeywordIndex, queryTerms } from '../../../src/engine/recall/keywordIndex';

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

  it('returns nothing for an empty index or a query of unknown words', () => {
    assert.deepEqual(search(new KeywordIndex(), 'x'), []);
    assert.deepEqual(search(build(['a doc']), 'zzz'), []);
  });
});
