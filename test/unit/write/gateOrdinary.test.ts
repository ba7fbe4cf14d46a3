// Issue #14, gate10: ordinary benign texts (e-mails, code answers, tables, questions, dialogue, notes, issues in five
// languages, much chatty second-person advice — "could you…", "don't forget…", "from now on I'll…"). Half is trained on
// (gate-train-gate10.jsonl), half is a dev set never trained on (gate-ordinary-dev.jsonl), scored by `bench gate`.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gate } from '../../../src/engine/write/poisonGate';
import { BENIGN_DEV_FILE, OWN_HELDOUT_FILE, OWN_TRAIN_FILES, ORDINARY_DEV_FILE, ORDINARY_TRAIN_FILE, readJsonl, repoRoot, SECOND_TRAIN_FILES } from '../../../src/engine/write/poisonGateTrain';

const LANGS = ['en', 'de', 'hu', 'es', 'fr'];
const FAMILIES = ['email', 'code_answer', 'table', 'question', 'dialogue', 'note', 'issue'];

describe('poison gate: gate10 ordinary benign texts', () => {
  const root = repoRoot(__dirname);
  const train = readJsonl(join(root, ORDINARY_TRAIN_FILE));
  const dev = readJsonl(join(root, ORDINARY_DEV_FILE));
  const key = (v: Record<string, unknown>) => String(v.text).trim().toLowerCase();

  it('trains on one half and never on the dev half', () => {
    assert.ok(OWN_TRAIN_FILES.includes(ORDINARY_TRAIN_FILE));
    assert.ok(!OWN_TRAIN_FILES.includes(ORDINARY_DEV_FILE));
  });

  it('has well-formed benign rows in five languages and seven families, ≥ 100 per half, every family per language', () => {
    for (const [file, rows] of [[ORDINARY_TRAIN_FILE, train], [ORDINARY_DEV_FILE, dev]] as const) {
      assert.ok(readFileSync(join(root, file), 'utf8').endsWith('\n'), file);
      const bad = rows.filter((v) => typeof v.text !== 'string' || !v.text.trim() || v.label !== 'benign'
        || !LANGS.includes(String(v.lang)) || !FAMILIES.includes(String(v.family)) || v.source !== 'gate10');
      assert.equal(bad.length, 0, `${file}: ${bad.length} malformed rows`);
      assert.ok(rows.length >= 100, `${file}: ${rows.length} rows`);
      for (const lang of LANGS) for (const family of FAMILIES) {
        assert.ok(rows.some((v) => v.lang === lang && v.family === family), `${file}: ${lang}/${family}`);
      }
    }
    const long = [...train, ...dev].filter((v) => String(v.text).split(/\s+/).length >= 150);
    assert.ok(long.length >= 10, `${long.length} long texts`);
  });

  it('shares no text with any other corpus', () => {
    const others = [...SECOND_TRAIN_FILES.filter((f) => f !== ORDINARY_TRAIN_FILE), OWN_HELDOUT_FILE, BENIGN_DEV_FILE, 'test/fixtures/gate-dev-gate8.jsonl']
      .flatMap((f) => readJsonl(join(root, f)).map(key));
    const seen = new Set(others);
    const ours = [...train, ...dev].map(key);
    assert.equal(new Set(ours).size, ours.length, 'duplicate inside gate10');
    assert.deepEqual(ours.filter((k) => seen.has(k)), []);
  });

  // gate16 (trained on v1–v8) relaxed 1 → 2: one German advice e-mail ("Hallo Paul, … Steuererklärung …") scores above the
  // threshold whenever the authors' attacks are trained on (gate12 found the same); 2 of 102 is inside the issue's 3 %.
  it('the shipped gate rejects none of them and flags at most 2 of the dev half (≤ 2 %)', () => {
    const flagged = dev.filter((v) => gate(String(v.text)).verdict !== 'pass');
    assert.equal([...train, ...dev].filter((v) => gate(String(v.text)).verdict === 'reject').length, 0);
    assert.ok(flagged.length <= 2, `${flagged.length} of ${dev.length} flagged`);
  });
});
