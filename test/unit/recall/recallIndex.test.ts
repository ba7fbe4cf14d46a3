import { strict as assert } from 'node:assert';
import { HashEmbedder } from '../../../src/engine/embed/hashEmbedder';
import { nullLogger } from '../../../src/engine/host';
import { KeywordIndex, queryTerms, type KeywordContext } from '../../../src/engine/recall/keywordIndex';
import { type IndexedItem, RecallIndex } from '../../../src/engine/recall/recallIndex';

const NOW = Date.UTC(2026, 5, 1);

function raw(id: string, text: string, conversation: string, created: number, over: Partial<IndexedItem> = {}): IndexedItem {
  return {
    id, kind: 'raw', text, project: 'p', projectType: null, conversation, trust: 'owner', untrusted: false, secret: false,
    pinned: false, role: 'user', created, importance: null, invalidated: false, archived: false, expiresAt: null, ...over,
  };
}

/** Doc ids 0..n-1 linked in a chain with the given weight to the next doc. */
function chain(n: number, weight: number, blocked = new Set<number>()): KeywordContext {
  return {
    linksOf: (d) => [d - 1, d + 1].filter((x) => x >= 0 && x < n && !blocked.has(x)).map((docId) => ({ docId, weight })),
  };
}

describe('KeywordIndex context expansion', () => {
  const docs = ['the staging deploy failed on the migration step', 'yes, run it again with verbose logs', 'lunch plans for friday'];
  const build = () => {
    const idx = new KeywordIndex();
    docs.forEach((d, i) => idx.add(i, d));
    return idx;
  };
  const terms = queryTerms('staging deploy migration').terms;

  it('finds a message through the words of its linked neighbour, below the message that has them', () => {
    const idx = build();
    assert.deepEqual(idx.search(terms, 5).map((h) => h.docId), [0]);
    const hits = idx.search(terms, 5, { context: chain(3, 0.5) });
    assert.deepEqual(hits.map((h) => h.docId), [0, 1]);
    assert.ok(hits[0]!.score > hits[1]!.score);
  });

  it('counts nothing from a linked doc the filter refuses', () => {
    const idx = build();
    const hits = idx.search(terms, 5, { context: chain(3, 0.5), filter: (d) => d !== 0 });
    assert.deepEqual(hits, []);
  });

  it('scores a doc without links exactly as plain BM25', () => {
    const idx = build();
    const plain = idx.search(terms, 5);
    const expanded = idx.search(terms, 5, { context: { linksOf: () => [] } });
    assert.deepEqual(expanded, plain);
  });
});

describe('RecallIndex', () => {
  const open = () => new RecallIndex(new HashEmbedder(), nullLogger);

  it('links the raw messages of one conversation in time order, whatever the insertion order', () => {
    const idx = open();
    idx.upsert(raw('rw:b', 'second', 'c1', 2000));
    idx.upsert(raw('rw:a', 'first', 'c1', 1000));
    idx.upsert(raw('rw:d', 'fourth', 'c1', 4000));
    idx.upsert(raw('rw:c', 'third', 'c1', 3000));
    idx.upsert(raw('rw:x', 'other conversation', 'c2', 2500));
    const doc = (id: string) => [...Array(10).keys()].find((d) => idx.idOf(d) === id)!;
    const links = (id: string) => idx.linksOf(doc(id)).map((l) => [idx.idOf(l.docId), l.weight]);
    assert.deepEqual(links('rw:b'), [['rw:a', 0.5], ['rw:c', 0.5], ['rw:d', 0.25]]);
    assert.deepEqual(links('rw:x'), []);
    idx.remove('rw:c');
    assert.deepEqual(links('rw:b'), [['rw:a', 0.5], ['rw:d', 0.5]]);
  });

  it('returns the reply to a matching message, and never a message of another project through a link', async () => {
    const idx = open();
    idx.upsert(raw('rw:1', 'the staging deploy failed on the migration step', 'c1', 1000));
    idx.upsert(raw('rw:2', 'yes, run it again with verbose logs', 'c1', 2000));
    idx.upsert(raw('rw:3', 'ok, running it again', 'c1', 3000, { project: 'other' }));
    const hits = await idx.search({ text: 'staging deploy migration', scope: { project: 'p' }, now: NOW, k: 5 });
    assert.deepEqual(hits.map((h) => h.id).slice(0, 2), ['rw:1', 'rw:2']);
    assert.ok(!hits.some((h) => h.id === 'rw:3'));
  });

  it('takes a primed vector for the next upsert of its text, and none primed before an embedder switch', () => {
    const text = 'the staging deploy failed on the migration step';
    const hash = new HashEmbedder();
    const vec = hash.embedOne(text);
    const idx = new RecallIndex(hash, nullLogger);
    idx.primeVector(text, vec);
    idx.upsert(raw('rw:1', text, 'c1', 1000));
    assert.equal(idx.primedUsed, 1);
    assert.deepEqual(Array.from(idx.vectorOf('rw:1') ?? []).map((x) => Math.round(x * 100)), Array.from(vec).map((x) => Math.round(x * 100)));
    assert.equal(idx.pendingVectorCount, 0);

    // Another embedder of the same width: a vector primed for the hash embedder must not be taken after the switch.
    const other = { id: 'other-384', dims: hash.dims, embed: async (ts: string[]) => ts.map(() => new Float32Array(hash.dims).fill(1 / Math.sqrt(hash.dims))) };
    const idx2 = new RecallIndex(hash, nullLogger);
    idx2.primeVector(text, vec);
    idx2.setEmbedder(other);
    assert.equal(idx2.primedCount, 0);
    idx2.upsert(raw('rw:1', text, 'c1', 1000));
    assert.equal(idx2.primedUsed, 0);
    assert.equal(idx2.pendingVectorCount, 1, 'the text waits for the new embedder');
    idx2.primeVector(text, vec);
    assert.equal(idx2.primedCount, 0, 'nothing is primed for an embedder other than the hash embedder');
  });

  it('maps the e5-calibrated minScore onto hash cosines (0.6 → 0.1)', () => {
    assert.ok(Math.abs(open().vectorFloor(0.6) - 0.1) < 1e-9);
  });
});
