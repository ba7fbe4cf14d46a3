// The poison gate's second learned model (gate24/gate25, issue #14; docs/gate24-rule.md). gate22 and gate23 trained the
// one model on the blind authors' parts and lost deepset's short attacks: with ~9,000 more rows the model scores dialogue
// and the benign dev set higher, the one calibrated `untrusted` threshold rises with them (0.99 → ~1.55 logits) and
// short attacks fall under it. So the first model stays as it was and a second one — the same trainer on the first
// one's rows plus blind parts v10–v24 — gets a threshold of its own, set by what it adds: the lowest value at which the
// texts it flags and the first gate passes are at most 3 of LoCoMo's 2,760 turns and 5 of benign-dev's 549 texts, and
// none of the ordinary dev half (gate10) nor of the dev third of docs about secrets and prompts (gate15) — gate24 at
// the first two budgets alone (1.81) flagged one more ordinary e-mail and two more runbooks, past those sets' unit-test
// bounds; gate25 raised it to what they allow (≈ 2.26). Its gate (same steps) only judges texts the rules pass and can
// only raise `pass` to `untrusted` (poisonGate.ts createGate): it never quarantines, and the first model's verdicts are
// never lowered, so deepset's cross-validated recall cannot fall below the first's.
import { join } from 'node:path';
import { createGate, GateFn } from './poisonGate';
import { encodeGateModel, GateModel, loadGateModel, withHiddenLayer } from './poisonGateModel';
import { BLIND_TRAIN_FILE, HBSECRETS_DEV_FILE, LOCOMO_FILE, ORDINARY_DEV_FILE, SECOND_TRAIN_FILES } from './poisonGateFiles';
import {
  benchDataFile, calibrationScores, CalibrationSets, calibrationTexts, deepsetRows, readJsonl, renderHiddenModule, renderWeightsModule,
  repoRoot, SHIPPED_OPTIONS, trainGateModel, trainingInfo, TrainOptions, TrainRow, trainRowsOf,
} from './poisonGateTrain';

/** The first model's options, the blind parts' benign rows at 0.3 (as the authors' v1–v8, gate16). */
export const SECOND_OPTIONS: TrainOptions = {
  ...SHIPPED_OPTIONS,
  sourceWeight: { ...SHIPPED_OPTIONS.sourceWeight, [`${BLIND_TRAIN_FILE}#benign`]: 0.3 },
};

/** Extra flags the second model may add over the first gate on each of its calibration sets (gate24, gate25). */
export const SECOND_BUDGET = { dialogue: 3, dev: 5, ordinaryDev: 0, secretsDev: 0 } as const;
export type SecondBudget = { readonly [K in keyof typeof SECOND_BUDGET]: number };
/** The second model's calibration sets: the first model's two and the two dev sets it may not add a flag to. */
export type SecondSets = { readonly [K in keyof typeof SECOND_BUDGET]: readonly string[] };

/** The four calibration sets (the ordinary dev half and gate15's dev third next to LoCoMo and benign dev). */
export function secondCalibrationSets(cal: CalibrationSets, root = repoRoot()): SecondSets {
  const texts = (f: string) => readJsonl(join(root, f)).map((v) => String(v.text));
  return { dialogue: cal.dialogue, dev: cal.dev, ordinaryDev: texts(ORDINARY_DEV_FILE), secretsDev: texts(HBSECRETS_DEV_FILE) };
}

/** The second model's own rows (deepset's are added by the caller). */
export function secondTrainRows(root = repoRoot()): TrainRow[] {
  return trainRowsOf(SECOND_TRAIN_FILES, root);
}

/** Texts the first gate passes and the union flags. */
export function extraFlags(first: GateFn, union: GateFn, texts: readonly string[]): number {
  return texts.filter((t) => first(t).verdict === 'pass' && union(t).verdict !== 'pass').length;
}

/** The smallest float32 above x (thresholds are stored as float32). */
function float32Above(x: number): number {
  const f = new Float32Array([x]);
  if (f[0] > x) return f[0];
  const i = new Int32Array(f.buffer);
  if (f[0] === 0) { f[0] = 1.4e-45; return f[0]; }
  i[0] += f[0] > 0 ? 1 : -1;
  return f[0];
}

export interface SecondCalibration { bytes: Uint8Array; model: GateModel; extra: SecondBudget }

/**
 * The second model's weights file with its own threshold (see the header): per calibration set, the scores of the
 * texts the first gate passes and the second one would flag at their own score (calibrationScores: rules pass), the threshold
 * just above the (budget + 1)-th highest; the higher of the two sets'. Then checked on the union itself (a text's
 * later steps may flag otherwise than its score says) and raised by 0.01 until both budgets hold.
 */
export function calibrateSecond(first: GateModel | null, secondBytes: Uint8Array, hiddenBytes: Uint8Array | null, sets: SecondSets,
  budget: SecondBudget = SECOND_BUDGET): SecondCalibration {
  const trained = withHiddenLayer(loadGateModel(secondBytes), hiddenBytes);
  const firstGate = createGate(first);
  const names = Object.keys(SECOND_BUDGET) as (keyof SecondBudget)[];
  // The texts the first gate passes, once per set: only they can be extra flags.
  const passed = Object.fromEntries(names.map((k) => [k, sets[k].filter((t) => firstGate(t).verdict === 'pass')])) as Record<keyof SecondBudget, string[]>;
  const above = (texts: readonly string[], n: number): number => {
    const zs = calibrationScores(trained, texts).sort((a, b) => b - a);
    return zs.length > n ? float32Above(zs[n]) : -Infinity;
  };
  let t = Math.max(...names.map((k) => above(passed[k], budget[k])));
  if (!Number.isFinite(t)) t = trained.untrustedAt;
  for (let step = 0; step < 1000; step++, t = float32Above(t + 0.01)) {
    const { sha256: _table, hidden: _hidden, ...raw } = trained;
    const bytes = encodeGateModel({ ...raw, untrustedAt: t, rejectAt: Math.max(raw.rejectAt, t) });
    const model = withHiddenLayer(loadGateModel(bytes), hiddenBytes);
    const union = createGate(first, {}, model);
    const extra = Object.fromEntries(names.map((k) => [k, passed[k].filter((x) => union(x).verdict !== 'pass').length])) as Record<keyof SecondBudget, number>;
    if (names.every((k) => extra[k] <= budget[k])) return { bytes, model, extra };
  }
  throw new Error('train:gate: no threshold keeps the second model within its budget');
}

/** Trains and calibrates the second model against the first (what `npm run train:gate` writes next to it). */
export function trainSecondShipped(deepsetFile: string, first: GateModel, root = repoRoot(), locomoFile = benchDataFile(LOCOMO_FILE, root)):
  { module: string; bytes: Uint8Array; hiddenModule: string; hiddenBytes: Uint8Array | null; info: Record<string, unknown> } {
  if (!locomoFile) throw new Error(`train:gate: ${LOCOMO_FILE} not found in ../shared/bench-data (the calibration texts)`);
  const rows = [...secondTrainRows(root), ...deepsetRows(deepsetFile)];
  const cal = calibrationTexts(locomoFile, root);
  const r = trainGateModel(rows, { ...SECOND_OPTIONS, calibrationTexts: cal });
  const c = calibrateSecond(first, r.bytes, r.hiddenBytes, secondCalibrationSets(cal, root));
  const info = {
    ...trainingInfo(rows, deepsetFile, locomoFile, root, SECOND_OPTIONS),
    ownUntrustedAt: +r.model.untrustedAt.toFixed(4),
    untrustedAt: +c.model.untrustedAt.toFixed(4),
    budget: SECOND_BUDGET,
    extraFlags: c.extra,
  };
  return {
    module: renderWeightsModule(c.bytes, info, 'GATE_SECOND_WEIGHTS'),
    bytes: c.bytes,
    hiddenModule: renderHiddenModule(r.hiddenBytes, 'GATE_SECOND_HIDDEN', 'poisonGateSecondWeights.ts'),
    hiddenBytes: r.hiddenBytes,
    info,
  };
}
