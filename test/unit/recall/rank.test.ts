import { strict as assert } from 'node:assert';
import { mergeHybrid, passageAround, recencyFactor, scoreCandidate, type Candidate } from '../../../src/engine/recall/rank';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);
const cand = (over: Partial<Candidate> = {}): Candidate => ({
  relevance: 0.8, kind: 'note', createdMs: NOW, nowMs: NOW, importance: 0.5, trust: 'owner', ...over,
});

describe('rank: scoreCandidate (R-RECALL-4)', () => {
  it('halves recency after the half-life of the kind: facts 30 d, raw 90 d, notes 365 d', () => {
    assert.ok(Math.abs(recencyFactor('fact', NOW - 30 * DAY, NOW) - 0.5) < 1e-9);
    assert.ok(Math.abs(recencyFactor('raw', NOW - 90 * DAY, NOW) - 0.5) < 1e-9);
    assert.ok(Math.abs(recencyFactor('note', NOW - 365 * DAY, NOW) - 0.5) < 1e-9);
    assert.ok(Math.abs(recencyFactor('summary', NOW - 365 * DAY, NOW) - 0.5) < 1e-9);
  });

  it('never decays a pinned item', () => {
    const old = NOW - 3000 * DAY;
    assert.equal(scoreCandidate(cand({ pinned: true, createdMs: old })), scoreCandidate(cand()));
  });

  it('ranks an old fact below a new one of equal relevance', () => {
    assert.ok(scoreCandidate(cand({ kind: 'fact', createdMs: NOW - 60 * DAY })) < scoreCandidate(cand({ kind: 'fact' })));
  });

  it('keeps relevance first: a clearly more relevant old note beats a fresh weak one', () => {
    assert.ok(scoreCandidate(cand({ relevance: 0.9, createdMs: NOW - 400 * DAY })) > scoreCandidate(cand({ relevance: 0.4 })));
  });

  it('weights trust: owner = derived > ingested > peer, quarantined scores 0', () => {
    const s = (trust: Candidate['trust']) => scoreCandidate(cand({ trust }));
    assert.equal(s('owner'), s('derived'));
    assert.ok(s('derived') > s('ingested') && s('ingested') > s('peer'));
    assert.equal(s('quarantined'), 0);
  });

  it('gives a small bonus for the same conversation and the same project', () => {
    const base = scoreCandidate(cand());
    const conv = scoreCandidate(cand({ sameConversation: true }));
    const proj = scoreCandidate(cand({ sameProject: true }));
    assert.ok(conv > base && proj > base && conv - base < 0.1);
  });

  it('scores 0 without relevance, whatever the recency', () => {
    assert.equal(scoreCandidate(cand({ relevance: 0 })), 0);
  });
});

describe('rank: mergeHybrid', () => {
  it('ignores vector hits under the minimum score', () => {
    const m = mergeHybrid([], [{ docId: 1, score: 0.59 }, { docId: 2, score: 0.7 }], { minVectorScore: 0.6 });
    assert.deepEqual([...m.keys()], [2]);
  });

  it('ranks a doc found by both sides above docs found by one', () => {
    for (const method of ['weighted', 'rrf'] as const) {
      const m = mergeHybrid([{ docId: 1, score: 0.9 }, { docId: 3, score: 0.8 }], [{ docId: 1, score: 0.85 }, { docId: 2, score: 0.9 }], { method });
      assert.ok(m.get(1)! > m.get(2)! && m.get(1)! > m.get(3)!, method);
      for (const v of m.values()) assert.ok(v >= 0 && v <= 1);
    }
  });

  it('takes the side weights as parameters', () => {
    const kw = [{ docId: 1, score: 1 }], vec = [{ docId: 2, score: 1 }];
    const m = mergeHybrid(kw, vec, { keywordWeight: 0.8, vectorWeight: 0.2 });
    assert.ok(m.get(1)! > m.get(2)!);
  });
});

describe('rank: passageAround', () => {
  const filler = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');

  it('returns short text unchanged', () => {
    assert.equal(passageAround('a short message', ['message']), 'a short message');
  });

  it('picks the window with the most query terms, cut at word boundaries with … marks', () => {
    const text = `${filler(60, 'alpha')} the httpx client raised ReadTimeout after 30 s on upload ${filler(60, 'omega')}`;
    const p = passageAround(text, ['httpx', 'readtimeout', 'upload'], 120);
    assert.ok(p.length <= 120, `length ${p.length}`);
    assert.ok(p.startsWith('…') && p.endsWith('…'));
    assert.ok(p.includes('httpx') && p.includes('ReadTimeout') && p.includes('upload'));
    const inner = p.slice(1, -1);
    assert.ok(text.includes(inner), 'whole words only');
  });

  it('falls back to the start when no term occurs, never over the limit', () => {
    const p = passageAround(filler(200, 'word'), ['absent']);
    assert.ok(p.startsWith('word0') && p.endsWith('…') && p.length <= 280);
  });
});

describe('rank: relevance dominates (recency only breaks near-ties)', () => {
  it('keeps a month-old message of clearly higher relevance above a fresh one', () => {
    const old = scoreCandidate(cand({ kind: 'raw', relevance: 0.8, createdMs: NOW - 300 * DAY, importance: 0.3 }));
    const fresh = scoreCandidate(cand({ kind: 'raw', relevance: 0.7, importance: 0.9 }));
    assert.ok(old > fresh);
  });

  it('lets recency decide between equally relevant messages', () => {
    const old = scoreCandidate(cand({ kind: 'raw', createdMs: NOW - 300 * DAY }));
    assert.ok(old < scoreCandidate(cand({ kind: 'raw' })));
  });
});
