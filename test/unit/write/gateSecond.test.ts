import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { gate, gateFromWeights, GateResult, gateRules } from '../../../src/engine/write/poisonGate';
import { calibrateSecond, extraFlags, SECOND_BUDGET, secondCalibrationSets, secondTrainRows } from '../../../src/engine/write/poisonGateSecond';
import {
  ATTACK_DEV_FILE, AUTHORS_DEV_FILE, BENIGN_DEV_FILE, BLIND_DEV_FILE, BLIND_TRAIN_FILE, benchDataFile, calibrationTexts, HARD_DEV_FILE, LOCOMO_FILE, ORDINARY_DEV_FILE,
  OWN_HELDOUT_FILE, OWN_TRAIN_FILES, readJsonl, repoRoot, SECOND_TRAIN_FILES, trainsOn,
} from '../../../src/engine/write/poisonGateTrain';
import { GATE_WEIGHTS_B64 } from '../../../src/engine/write/poisonGateWeights';
import { GATE_HIDDEN_B64 } from '../../../src/engine/write/poisonGateHiddenWeights';
import { GATE_SECOND_WEIGHTS_B64 } from '../../../src/engine/write/poisonGateSecondWeights';
import { GATE_SECOND_HIDDEN_B64 } from '../../../src/engine/write/poisonGateSecondHiddenWeights';

// gate24 (issue #14): the shipped gate is the first model's gate, raised from pass to untrusted where a second model,
// trained on the blind authors' parts v10–v24 too and calibrated on what it adds, flags a text.
describe('poison gate: the second model (gate24)', () => {
  const root = repoRoot(__dirname);
  const first = gateFromWeights(GATE_WEIGHTS_B64, GATE_HIDDEN_B64);
  const texts = (f: string) => readJsonl(join(root, f)).map((v) => ({ text: String(v.text), attack: v.label !== 'benign' && v.label !== 'pass', family: String(v.family) }));

  it('trains on the blind parts next to the first model\'s corpora, never on a dev set or the held-out part', () => {
    assert.deepEqual(SECOND_TRAIN_FILES, [...OWN_TRAIN_FILES, BLIND_TRAIN_FILE]);
    for (const f of [OWN_HELDOUT_FILE, BLIND_DEV_FILE, BENIGN_DEV_FILE, ORDINARY_DEV_FILE, HARD_DEV_FILE, ATTACK_DEV_FILE, AUTHORS_DEV_FILE]) assert.ok(!SECOND_TRAIN_FILES.includes(f), f);
    const blind = readJsonl(join(root, BLIND_TRAIN_FILE));
    assert.equal(new Set(blind.map((v) => v.part)).size, 15, 'parts v10–v24');
    const left = blind.filter((v) => !trainsOn(BLIND_TRAIN_FILE, v));
    assert.ok(left.length > 0 && left.every((v) => v.label === 'benign'), 'only quoting benign rows are left out');
    assert.ok(left.some((v) => v.family === 'llm_code') && left.some((v) => v.family === 'security_quote'));
    const rows = secondTrainRows(root);
    assert.equal(rows.filter((r) => r.source === BLIND_TRAIN_FILE).length, blind.length - left.length);
    const held = new Set(readJsonl(join(root, OWN_HELDOUT_FILE)).map((v) => String(v.text).trim().toLowerCase()));
    assert.deepEqual(rows.filter((r) => held.has(r.text.trim().toLowerCase())).map((r) => r.text), []);
    // gate27's dev parts (v25–v27, v30) are neither trained on nor in the held-out file.
    const dev = new Set(readJsonl(join(root, BLIND_DEV_FILE)).map((v) => String(v.text).trim().toLowerCase()));
    assert.deepEqual(rows.filter((r) => dev.has(r.text.trim().toLowerCase())).map((r) => r.text), []);
    assert.deepEqual([...held].filter((t) => dev.has(t)), []);
  });

  it('only raises pass to untrusted: the first model\'s verdicts stand, the second never rejects', () => {
    let raised = 0;
    for (const f of [ATTACK_DEV_FILE, BENIGN_DEV_FILE, AUTHORS_DEV_FILE, 'test/fixtures/gate-dev-gate8.jsonl', 'test/fixtures/gate17-dev.jsonl']) {
      for (const { text } of texts(f)) {
        const a = first.gate(text), u = gate(text);
        if (a.verdict !== 'pass') assert.deepEqual(u, a, text.slice(0, 80));
        else if (u.verdict !== 'pass') {
          assert.deepEqual(u, { verdict: 'untrusted', detector: 'classifier2' } satisfies GateResult);
          assert.equal(gateRules(text).verdict, 'pass', 'a text the rules flag is left to them');
          raised++;
        }
        else assert.deepEqual(u, a);
      }
    }
    assert.ok(raised > 0);
    for (const bad of ['', '   ', '\u0000']) assert.equal(gate(bad).verdict, first.gate(bad).verdict);
  });

  it('catches attacks of other writers the first model passes (gate8 and gate17 dev: ≥ 3 more hijacking/extraction)', () => {
    const he = ['gate-dev-gate8.jsonl', 'gate17-dev.jsonl'].flatMap((f) => texts(`test/fixtures/${f}`)).filter((r) => r.attack && (r.family === 'hijack' || r.family === 'extraction'));
    const firstCaught = he.filter((r) => first.gate(r.text).verdict !== 'pass').length;
    const caught = he.filter((r) => gate(r.text).verdict !== 'pass').length;
    assert.ok(caught >= firstCaught + 3, `${firstCaught} → ${caught} of ${he.length}`);
  });

  describe('its threshold', () => {
    const locomo = benchDataFile(LOCOMO_FILE, root);
    const cal = locomo ? calibrationTexts(locomo, root) : null;
    const secondBytes = new Uint8Array(Buffer.from(GATE_SECOND_WEIGHTS_B64, 'base64'));
    const hidden = new Uint8Array(Buffer.from(GATE_SECOND_HIDDEN_B64, 'base64'));

    it('adds at most 3 of LoCoMo\'s dialogue turns and 5 benign-dev texts to what the first model flags, no ordinary or secrets-docs dev text', function () {
      if (!cal) this.skip();
      const sets = secondCalibrationSets(cal!, root);
      for (const k of Object.keys(SECOND_BUDGET) as (keyof typeof SECOND_BUDGET)[]) assert.ok(extraFlags(first.gate, gate, sets[k]) <= SECOND_BUDGET[k], k);
      assert.deepEqual([SECOND_BUDGET.ordinaryDev, SECOND_BUDGET.secretsDev], [0, 0]);
      assert.ok(cal!.dialogue.filter((t) => gate(t).verdict !== 'pass').length <= 13, 'the issue: ≤ 0.5 % of 2,760 turns');
    });

    it('is what calibration gives again, and a smaller budget sets a higher one that keeps it', function () {
      if (!cal) this.skip();
      this.timeout(120_000);
      const sets = secondCalibrationSets(cal!, root);
      const again = calibrateSecond(first.model, secondBytes, hidden, sets);
      assert.deepEqual(Buffer.from(again.bytes).toString('base64'), GATE_SECOND_WEIGHTS_B64);
      const none = calibrateSecond(first.model, secondBytes, hidden, sets, { dialogue: 0, dev: 0, ordinaryDev: 0, secretsDev: 0 });
      assert.deepEqual(none.extra, { dialogue: 0, dev: 0, ordinaryDev: 0, secretsDev: 0 });
      assert.ok(none.model.untrustedAt > again.model.untrustedAt, `${none.model.untrustedAt} vs ${again.model.untrustedAt}`);
    });
  });
});
