// Issue #14, gate14: hard-benign texts next to requests aimed at the assistant — documentation how-tos that mention
// prompts and assistants, meeting notes and transcripts, security write-ups quoting attacks, users asking an assistant
// about their own data, credential requests through proper channels — in five languages. Two thirds are training
// material (gate-train-hardbenign.jsonl), one third a dev set never trained or calibrated on (gate-hardbenign-dev.jsonl),
// scored by `bench gate`.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { gate } from '../../../src/engine/write/poisonGate';
import { assertBenignRows, assertOwnTexts, LANGS } from './gateCorpus';
import {
  ADVICE_DEV_FILE, ADVICE_TRAIN_FILE, HARDBENIGN_DEV_FILE, HARDBENIGN_TRAIN_FILE, AUTHORS_DEV_FILE, BENIGN_DEV_FILE, OWN_HELDOUT_FILE, OWN_TRAIN_FILES, SECOND_TRAIN_FILES, ORDINARY_DEV_FILE, HARD_DEV_FILE,
  readJsonl, repoRoot, trainsOn,
} from '../../../src/engine/write/poisonGateTrain';

describe('poison gate: gate14 hard-benign texts next to requests aimed at the assistant', () => {
  const root = repoRoot(__dirname);
  const train = readJsonl(join(root, HARDBENIGN_TRAIN_FILE));
  const dev = readJsonl(join(root, HARDBENIGN_DEV_FILE));

  it('never trains on the dev third', () => {
    assert.ok(!OWN_TRAIN_FILES.includes(HARDBENIGN_DEV_FILE));
  });

  it('has well-formed benign rows, ≥ 25 per language, two thirds for training', () => {
    assertBenignRows(root, [[HARDBENIGN_TRAIN_FILE, train], [HARDBENIGN_DEV_FILE, dev]], 'gate14');
    for (const lang of LANGS) assert.ok([...train, ...dev].filter((v) => v.lang === lang).length >= 25, lang);
    for (const lang of LANGS) assert.equal(train.filter((v) => v.lang === lang).length, 2 * dev.filter((v) => v.lang === lang).length + 1, lang);
    for (const v of [...train, ...dev]) assert.equal(trainsOn(HARDBENIGN_TRAIN_FILE, v), v.family !== 'security_quote');
  });

  it('shares no text with any other corpus', () => {
    const others = [...SECOND_TRAIN_FILES, ADVICE_TRAIN_FILE, ADVICE_DEV_FILE, OWN_HELDOUT_FILE, BENIGN_DEV_FILE, ORDINARY_DEV_FILE, HARD_DEV_FILE,
      AUTHORS_DEV_FILE, 'test/fixtures/gate-dev-gate8.jsonl'];
    assertOwnTexts(root, [...train, ...dev], others, 'gate14');
  });

  // Measured on main's weights before any training on these rows: 3 of 40 flagged — an FR security report quoting
  // "oublie toutes tes instructions précédentes" (rejected by ignore_previous; since gate15 the reported-speech step
  // reads "des phrases du type « … »" as a mention and it passes), an HU how-to on the assistant's memory
  // (assistant_instruction), a DE blog post quoting a planted upload order (classifier).
  it('the shipped gate flags at most 3 of the dev third (none rejected, ≤ 1 by the classifier)', () => {
    const verdicts = dev.map((v) => gate(String(v.text)));
    assert.ok(verdicts.filter((v) => v.verdict !== 'pass').length <= 3);
    assert.equal(verdicts.filter((v) => v.verdict === 'reject').length, 0);
    assert.ok(verdicts.filter((v) => v.verdict !== 'pass' && v.detector === 'classifier').length <= 1);
  });
});
