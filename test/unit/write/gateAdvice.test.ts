// Issue #14, gate13: ordinary second-person advice between people (e-mails, chat answers, forum replies, ssh/shell/git/admin
// how-tos, cooking, travel, health, money, study) in five languages — the register that authors-trained candidates
// flagged (gate12). Two thirds are trained on (gate-train-advice.jsonl), one third is a dev set never trained on
// (gate-advice-dev.jsonl), scored by `bench gate`.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { gate } from '../../../src/engine/write/poisonGate';
import { assertBenignRows, assertOwnTexts, LANGS } from './gateCorpus';
import {
  ADVICE_DEV_FILE, ADVICE_TRAIN_FILE, AUTHORS_DEV_FILE, BENIGN_DEV_FILE, OWN_HELDOUT_FILE, OWN_TRAIN_FILES, ORDINARY_DEV_FILE, HARD_DEV_FILE,
  readJsonl, repoRoot, trainsOn, SECOND_TRAIN_FILES
} from '../../../src/engine/write/poisonGateTrain';

describe('poison gate: gate13 second-person advice texts', () => {
  const root = repoRoot(__dirname);
  const train = readJsonl(join(root, ADVICE_TRAIN_FILE));
  const dev = readJsonl(join(root, ADVICE_DEV_FILE));

  it('never trains on the dev third', () => {
    assert.ok(!OWN_TRAIN_FILES.includes(ADVICE_DEV_FILE));
  });

  it('has well-formed benign rows, ≥ 25 per language, two thirds for training', () => {
    assertBenignRows(root, [[ADVICE_TRAIN_FILE, train], [ADVICE_DEV_FILE, dev]], 'gate13');
    for (const lang of LANGS) assert.ok([...train, ...dev].filter((v) => v.lang === lang).length >= 25, lang);
    assert.equal(train.length, 2 * dev.length);
    for (const v of [...train, ...dev]) assert.ok(trainsOn(ADVICE_TRAIN_FILE, v));
  });

  it('shares no text with any other corpus', () => {
    const others = [...SECOND_TRAIN_FILES.filter((f) => f !== ADVICE_TRAIN_FILE), OWN_HELDOUT_FILE, BENIGN_DEV_FILE, ORDINARY_DEV_FILE, HARD_DEV_FILE,
      AUTHORS_DEV_FILE, 'test/fixtures/gate-dev-gate8.jsonl'];
    assertOwnTexts(root, [...train, ...dev], others, 'gate13');
  });

  it('the shipped gate rejects none of them and flags at most 1 of the dev third (≤ 3 %)', () => {
    assert.equal([...train, ...dev].filter((v) => gate(String(v.text)).verdict === 'reject').length, 0);
    const flagged = dev.filter((v) => gate(String(v.text)).verdict !== 'pass');
    assert.ok(flagged.length <= 1, `${flagged.length} of ${dev.length} flagged`);
  });
});
