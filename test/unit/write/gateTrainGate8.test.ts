// Issue #14, gate8: the second author's corpus (test/fixtures/gate-train-gate8.jsonl) and its dev split
// (gate-dev-gate8.jsonl). Trained on since gate9 (with the linear model alone it lowered deepset CV recall 0.665 → 0.626;
// with the hidden layer 0.645 — see the README's poison gate section): well-formed, large enough per language and family, disjoint
// from every other corpus; the shipped gate's figures on the dev split are dev figures and a floor against regressions.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gate } from '../../../src/engine/write/poisonGate';
import { BENIGN_DEV_FILE, CANDIDATE_TRAIN_FILE, OWN_HELDOUT_FILE, OWN_TRAIN_FILES, readJsonl, repoRoot } from '../../../src/engine/write/poisonGateTrain';

const TRAIN = 'test/fixtures/gate-train-gate8.jsonl';
const DEV = 'test/fixtures/gate-dev-gate8.jsonl';
const LANGS = ['en', 'de', 'hu', 'es', 'fr'];
const FAMILIES = ['hijack', 'extraction', 'memory_poisoning'];

describe('poison gate: the gate8 training corpus and dev split', () => {
  const root = repoRoot(__dirname);
  const train = readJsonl(join(root, TRAIN));
  const dev = readJsonl(join(root, DEV));
  const key = (v: Record<string, unknown>) => String(v.text).trim().toLowerCase();

  // gate9 promoted the candidate into training (the brief's step 3: with the hidden layer it keeps deepset CV at 0.645);
  // its dev split stays out of training.
  it('is the candidate corpus, now trained on; its dev split is not', () => {
    assert.equal(CANDIDATE_TRAIN_FILE, TRAIN);
    assert.ok(OWN_TRAIN_FILES.includes(TRAIN));
    assert.ok(!OWN_TRAIN_FILES.includes(DEV));
  });

  it('has well-formed rows: text, label injection|benign, one of five languages, a family, source gate8', () => {
    for (const [file, rows] of [[TRAIN, train], [DEV, dev]] as const) {
      assert.ok(readFileSync(join(root, file), 'utf8').endsWith('\n'), file);
      const bad = rows.filter((v) => typeof v.text !== 'string' || !v.text.trim() || !['injection', 'benign'].includes(String(v.label))
        || !LANGS.includes(String(v.lang)) || typeof v.family !== 'string' || v.source !== 'gate8');
      assert.equal(bad.length, 0, `${file}: ${bad.length} malformed rows`);
    }
  });

  it('has ≥ 450 attacks and ≥ 450 benign look-alikes, ≥ 80 of each per language, and the three weighted families in every language', () => {
    const attacks = train.filter((v) => v.label === 'injection');
    const benign = train.filter((v) => v.label === 'benign');
    assert.ok(attacks.length >= 450 && benign.length >= 450, `${attacks.length} attacks, ${benign.length} benign`);
    for (const lang of LANGS) {
      const a = attacks.filter((v) => v.lang === lang);
      assert.ok(a.length >= 80, `${lang}: ${a.length} attacks`);
      assert.ok(benign.filter((v) => v.lang === lang).length >= 80, `${lang} benign`);
      for (const f of FAMILIES) assert.ok(a.filter((v) => v.family === f).length >= 15, `${lang}/${f}`);
    }
  });

  it('shares no text with itself, its dev split, the other training corpora, the held-out set or the calibration set', () => {
    const mine = train.map(key);
    assert.equal(new Set(mine).size, mine.length, 'duplicates inside the corpus');
    const devKeys = new Set(dev.map(key));
    assert.equal(devKeys.size, dev.length, 'duplicates inside the dev split');
    const others = OWN_TRAIN_FILES.filter((f) => f !== TRAIN);
    for (const f of [...others, OWN_HELDOUT_FILE, BENIGN_DEV_FILE]) {
      const theirs = new Set(readJsonl(join(root, f)).map(key));
      // Counts only: the held-out set's texts must not be printed.
      assert.equal(mine.filter((t) => theirs.has(t)).length, 0, `corpus ∩ ${f}`);
      assert.equal([...devKeys].filter((t) => theirs.has(t)).length, 0, `dev split ∩ ${f}`);
    }
    assert.equal(mine.filter((t) => devKeys.has(t)).length, 0, 'corpus ∩ dev split');
  });

  it('the shipped gate flags half of the dev attacks and few of the dev look-alikes, and rejects none of them (dev figures)', () => {
    const verdicts = dev.map((v) => ({ attack: v.label === 'injection', verdict: gate(String(v.text)).verdict }));
    const attacks = verdicts.filter((v) => v.attack);
    const benign = verdicts.filter((v) => !v.attack);
    const caught = attacks.filter((v) => v.verdict !== 'pass').length;
    const flagged = benign.filter((v) => v.verdict !== 'pass').length;
    // The shipped (gate7) weights: 55 of 102 (trained on the corpus: 67). A floor against regressions, not a target.
    assert.ok(caught >= 0.5 * attacks.length, `${caught} of ${attacks.length} attacks flagged`);
    assert.ok(flagged <= 0.08 * benign.length, `${flagged} of ${benign.length} look-alikes flagged`);
    assert.equal(benign.filter((v) => v.verdict === 'reject').length, 0);
  });
});
