// Issue #14, gate15: hard-benign documentation and sysadmin notes about secrets, keys, system prompts and assistant
// configuration that quote no attack — the register gate14 found flagged as often as the attacks its features caught. Two
// thirds are training material (gate-train-hbsecrets.jsonl), one third a dev set never trained or calibrated on
// (gate-hbsecrets-dev.jsonl), scored by `bench gate` (secretsDocsDev).
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { gate } from '../../../src/engine/write/poisonGate';
import { assertBenignRows, assertOwnTexts, LANGS } from './gateCorpus';
import {
  ADVICE_DEV_FILE, ADVICE_TRAIN_FILE, AUTHORS_DEV_FILE, BENIGN_DEV_FILE, HARD_DEV_FILE, HARDBENIGN_DEV_FILE, HARDBENIGN_TRAIN_FILE, HBSECRETS_DEV_FILE,
  HBSECRETS_TRAIN_FILE, OWN_HELDOUT_FILE, OWN_TRAIN_FILES, SECOND_TRAIN_FILES, ORDINARY_DEV_FILE, readJsonl, repoRoot,
} from '../../../src/engine/write/poisonGateTrain';

describe('poison gate: gate15 docs and sysadmin notes about secrets and prompts', () => {
  const root = repoRoot(__dirname);
  const train = readJsonl(join(root, HBSECRETS_TRAIN_FILE));
  const dev = readJsonl(join(root, HBSECRETS_DEV_FILE));

  it('never trains on the dev third', () => {
    assert.ok(!OWN_TRAIN_FILES.includes(HBSECRETS_DEV_FILE));
  });

  it('has well-formed benign rows, 18 per language, two thirds for training', () => {
    assertBenignRows(root, [[HBSECRETS_TRAIN_FILE, train], [HBSECRETS_DEV_FILE, dev]], 'gate15');
    for (const lang of LANGS) {
      assert.equal(train.filter((v) => v.lang === lang).length, 12, lang);
      assert.equal(dev.filter((v) => v.lang === lang).length, 6, lang);
    }
  });

  it('shares no text with any other corpus', () => {
    // Since gate16 the training third is one of OWN_TRAIN_FILES itself: compared with every other file.
    const others = [...SECOND_TRAIN_FILES.filter((f) => f !== HBSECRETS_TRAIN_FILE), ADVICE_TRAIN_FILE, ADVICE_DEV_FILE, HARDBENIGN_TRAIN_FILE, HARDBENIGN_DEV_FILE, OWN_HELDOUT_FILE, BENIGN_DEV_FILE,
      ORDINARY_DEV_FILE, HARD_DEV_FILE, AUTHORS_DEV_FILE, 'test/fixtures/gate-dev-gate8.jsonl'];
    assertOwnTexts(root, [...train, ...dev], others, 'gate15');
  });

  // Measured on main's weights, the first gate run on these rows: 5 of 30 flagged, none rejected, all by the classifier
  // and all docs_config — one text in EN/HU/ES/FR ("every summary must end with the source link") and a DE support
  // policy ("der Assistent soll keine Erstattungen zusagen").
  it('the shipped gate flags at most 5 of the dev third and rejects none', () => {
    const verdicts = dev.map((v) => gate(String(v.text)));
    assert.ok(verdicts.filter((v) => v.verdict !== 'pass').length <= 5);
    assert.equal(verdicts.filter((v) => v.verdict === 'reject').length, 0);
  });
});
