// The rules' factor prefilter (poisonGate.ts, regexFactors.ts, factorScan.ts) changes no verdict: over every gate and
// poison fixture text (and the deepset train split when ../shared/bench-data has it) and a few thousand mutated attack
// texts, the gate with the prefilter gives the same verdict and detector as the exhaustive gate, and no detector that
// matches a text's views is one the prefilter would have skipped.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectorFactors, gateFromWeights, ruleTrace } from '../../../src/engine/write/poisonGate';
import { GATE_WEIGHTS_B64 } from '../../../src/engine/write/poisonGateWeights';
import { GATE_HIDDEN_B64 } from '../../../src/engine/write/poisonGateHiddenWeights';
import { benchDataFile, readJsonl, repoRoot } from '../../../src/engine/write/poisonGateTrain';
import { DEEPSET_TRAIN_FILE } from '../../../src/engine/write/poisonGateFiles';
import { factorClauses } from '../../../src/engine/write/regexFactors';
import { FactorScan } from '../../../src/engine/write/factorScan';
import { prng } from '../../../src/engine/prng';

const root = repoRoot(__dirname);
const fixtures = join(root, 'test', 'fixtures');

/** Every text of the gate's fixtures: gate-*.jsonl, gate*-dev.jsonl, poison-*.jsonl, the short notes. */
function fixtureRows(): { text: string; label: string }[] {
  const rows: { text: string; label: string }[] = [];
  for (const f of readdirSync(fixtures).sort()) {
    if (/^(?:gate|poison).*\.jsonl$/.test(f)) for (const r of readJsonl(join(fixtures, f))) rows.push({ text: String(r.text), label: String(r.label) });
  }
  for (const line of readFileSync(join(fixtures, 'gate-short-notes.txt'), 'utf8').split('\n')) {
    if (line.trim() && !line.startsWith('# ')) rows.push({ text: line.replace(/\\n/g, '\n'), label: 'benign' });
  }
  return rows;
}

// Homoglyphs, zero-width characters, l33t and filler: the obfuscations the views undo, so factors must survive them.
const HOMOGLYPH: Record<string, string> = { a: 'а', e: 'е', o: 'о', p: 'р', c: 'с', i: 'і', s: 'ѕ', x: 'х', y: 'у' };
const LEET: Record<string, string> = { o: '0', i: '1', e: '3', a: '4', s: '5', t: '7' };
const FILLER = ['Thanks, see you tomorrow.', 'FYI the build is green again.', 'Meeting notes, 3 May:', 'btw', '> quoted reply', 'PS: lunch at 12?', '```\ncode\n```'];

/** Mutants of an attack text (seeded): case, spacing, homoglyphs, zero-width, l33t, spaced letters, filler, cuts. */
function mutants(text: string, seed: number, n: number): string[] {
  const r = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const out: string[] = [];
  for (let k = 0; k < n; k++) {
    let t = text;
    const ops = 1 + Math.floor(r() * 3);
    for (let o = 0; o < ops; o++) {
      const words = t.split(/(\s+)/);
      const w = 2 * Math.floor(r() * Math.ceil(words.length / 2));
      switch (Math.floor(r() * 10)) {
        case 0: t = [...t].map((c) => (r() < 0.3 ? (r() < 0.5 ? c.toUpperCase() : c.toLowerCase()) : c)).join(''); break;
        case 1: t = t.replace(/ /g, () => (r() < 0.2 ? pick(['  ', '\t', '\n', ' \u00a0']) : ' ')); break;
        case 2: t = [...t].map((c) => (r() < 0.15 && HOMOGLYPH[c] ? HOMOGLYPH[c] : c)).join(''); break;
        case 3: t = [...t].map((c) => (r() < 0.05 ? c + pick(['\u200b', '\u00ad', '\ufeff']) : c)).join(''); break;
        case 4: words[w] = [...(words[w] ?? '')].map((c) => (r() < 0.4 && LEET[c] ? LEET[c] : c)).join(''); t = words.join(''); break;
        case 5: words[w] = [...(words[w] ?? '')].join(pick([' ', '.', '-'])); t = words.join(''); break;
        case 6: t = r() < 0.5 ? `${pick(FILLER)} ${t}` : `${t}\n${pick(FILLER)}`; break;
        case 7: words.splice(w, 2); t = words.join(''); break;
        case 8: t = t.slice(0, Math.floor(t.length * (0.3 + 0.7 * r()))); break;
        default: t = t.replace(/[.!?,:]/g, (c) => (r() < 0.3 ? '' : c)); break;
      }
    }
    out.push(t);
  }
  return out;
}

function corpus(): string[] {
  const rows = fixtureRows();
  const texts = rows.map((r) => r.text);
  const attacks = rows.filter((r) => !['benign', 'pass'].includes(r.label));
  const r = prng(20261202);
  for (let k = 0; k < 1500 && attacks.length > 0; k++) texts.push(...mutants(attacks[Math.floor(r() * attacks.length)].text, k + 1, 2));
  const deepset = benchDataFile(DEEPSET_TRAIN_FILE, root);
  if (deepset) for (const row of readJsonl(deepset)) texts.push(String(row.text));
  return [...new Set(texts)];
}

describe('poison gate prefilter', function () {
  this.timeout(600_000);
  const texts = corpus();

  it('gives every text the verdict and detector of the exhaustive gate', () => {
    ruleTrace('warm up'); // builds the prefilter now (a process builds it once it has gated 500 texts)
    const fast = gateFromWeights(GATE_WEIGHTS_B64, GATE_HIDDEN_B64).gate;
    const slow = gateFromWeights(GATE_WEIGHTS_B64, GATE_HIDDEN_B64, { exhaustive: true }).gate;
    const diffs: string[] = [];
    for (const t of texts) {
      const a = fast(t), b = slow(t);
      if (a.verdict !== b.verdict || a.detector !== b.detector) diffs.push(`${JSON.stringify(b)} → ${JSON.stringify(a)}: ${t.slice(0, 120)}`);
    }
    assert.ok(texts.length > 15_000, `${texts.length} texts`);
    assert.deepEqual(diffs.slice(0, 10), []);
  });

  it('skips no detector that matches (every detector, no early exit)', () => {
    const missed = new Map<string, number>();
    const fired = new Map<number, number>();
    for (const t of texts) {
      ruleTrace(t).forEach((d, k) => {
        if (!d.fired) return;
        fired.set(k, (fired.get(k) ?? 0) + 1);
        if (!d.allowed) missed.set(`${k} ${d.name}: ${t.slice(0, 80)}`, k);
      });
    }
    assert.deepEqual([...missed.keys()].slice(0, 10), []);
    // Most detectors fire on some fixture text, so the check above exercised their factors.
    assert.ok(fired.size >= 55, `${fired.size} detectors fired`);
  });

  it('has factors for every detector', () => {
    const always = detectorFactors().map((d, k) => (d.clauses.length === 0 ? `${k} ${d.name}` : '')).filter(Boolean);
    assert.deepEqual(always, []);
  });
});

describe('regexFactors', () => {
  const clauses = (re: RegExp) => factorClauses(re).map((c) => [...c].sort()).sort((a, b) => (a.join() < b.join() ? -1 : 1));

  it('reads literals, alternations, classes and zero-width items', () => {
    assert.deepEqual(clauses(/\bignore\b/u), [['ignore']]);
    assert.deepEqual(clauses(/\b(?:ignore|disregard)\s+(?:the )?rules\b/u), [['disregard', 'ignore'], ['rules']]);
    assert.deepEqual(clauses(/e-?mail/), [['e-mail', 'email']]);
    assert.deepEqual(clauses(/(?<!no )\bforget\w*/u), [['forget']]);
    assert.deepEqual(clauses(/x[ab]y/), [['xay', 'xby']]);
  });

  it('gives no factor where a match may hold none', () => {
    for (const re of [/a*/, /(?:ab)?/, /\w+/, /(a)\1/, /foo/i, /.{3}/, /\p{L}+/u, /[a-z]{5}/]) assert.deepEqual(clauses(re), [], String(re));
    assert.deepEqual(clauses(/foo|\w+/), []); // one branch without a factor
  });

  it('keeps factors through unicode escapes and quantified groups', () => {
    assert.deepEqual(clauses(/\u00e9t\u00e9/u), [['été']]);
    assert.deepEqual(clauses(/(?:ab){2}c/), [['ababc']]);
    assert.deepEqual(clauses(/(?:ab)+c/), [['ab'], ['c']]);
  });

  it('never misses a match on random strings (random patterns from a small grammar)', () => {
    const r = prng(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
    const atom = (d: number): string => {
      const k = Math.floor(r() * (d > 2 ? 4 : 7));
      if (k <= 1) return pick(['a', 'b', 'ab', 'ba', 'c']);
      if (k === 2) return pick(['[ab]', '\\w', '.', '\\b', '^', '(?=a)', '(?<!b)']);
      if (k === 3) return pick(['a', 'b']) + pick(['?', '*', '+', '{2}', '{1,2}', '{0,1}']);
      if (k === 4) return `(?:${seqOf(d + 1)}|${seqOf(d + 1)})`;
      if (k === 5) return `(?:${seqOf(d + 1)})${pick(['', '?', '+', '*', '{2}'])}`;
      return `(${seqOf(d + 1)})`;
    };
    const seqOf = (d: number): string => Array.from({ length: 1 + Math.floor(r() * 3) }, () => atom(d)).join('');
    let checked = 0;
    for (let k = 0; k < 3000; k++) {
      const re = new RegExp(seqOf(0), 'g');
      const cnf = factorClauses(re);
      if (cnf.length === 0) continue;
      const scan = new FactorScan(cnf);
      for (let s = 0; s < 10; s++) {
        const text = Array.from({ length: Math.floor(r() * 12) }, () => pick(['a', 'b', 'c', ' '])).join('');
        re.lastIndex = 0;
        if (!re.test(text)) continue;
        const hits = new Uint8Array(scan.groups);
        scan.scan(text, hits);
        assert.ok(hits.every((h) => h === 1), `${re} matches ${JSON.stringify(text)} but factors ${JSON.stringify(cnf)} miss`);
        checked++;
      }
    }
    assert.ok(checked > 1000, `${checked} matches checked`);
  });
});

describe('FactorScan', () => {
  it('marks the sets with an occurrence, overlapping ones included', () => {
    const scan = new FactorScan([['he', 'she'], ['hers'], ['his'], ['x', 'ushe']]);
    const hits = new Uint8Array(scan.groups);
    scan.scan('ushers', hits);
    assert.deepEqual([...hits], [1, 1, 0, 1]);
  });
});
