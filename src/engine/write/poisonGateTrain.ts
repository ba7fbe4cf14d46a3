// Trainer of the poison gate's learned stage (issue #14). Not part of the extension bundle: run by
// `npm run train:gate` (test/tools/trainGate.mjs), by the weights test and by `bench gate` (for the
// cross-validated deepset scores). Deterministic: rows in a canonical order (by a hash of their text, whatever the
// order of the files and rows), a seeded PRNG for the epoch
// shuffles, float64 arithmetic in a fixed order, then int8 quantisation — the same data give the same
// weights file byte for byte.
//
// Model: logistic regression, AdaGrad, L2, class-balanced. A long text is several windows; for an
// attack only its highest-scoring window is the positive (a payload after benign filler must not teach
// the filler), for a benign text every window is a negative.
// Thresholds (gate6, gate7): `untrusted` is calibrated on benign texts kept apart from training, in two sets with a
// target each — the hard-benign development set (gate-benign-dev.jsonl: at most devFlagRate of it may be flagged by the
// classifier) and the LoCoMo dialogue turns (at most dialogueFlagRate) — scored by the shipped (quantised) model the way
// the gate uses it: only texts the rules pass, not source code (the classifier judges the prose inside code,
// poisonGateSource.ts), not a few words. Each set's quantile is the Harrell–Davis estimate (hdQuantile.ts), a weighted
// mean of all its scores, and `untrusted` = the higher of the two + calibrationMargin (0.25). gate6 took the empirical 0.8 %
// quantile of both sets pooled: ~24 texts in a sparse tail, so 31 more hard dev rows moved it by 0.07 logit and
// dropping a fifth of the dev rows moved it by ±0.04 (sd); the dialogue set (2,700 scored turns) now sets the
// operating point and the dev set is a guard that binds only when its own budget is exceeded.
// The training quantile it replaces moved with every hard-benign training row (gate5: more benign rows → a higher
// threshold → lower recall); a flag rate on texts the model never saw does not. `reject` stays above the benign
// out-of-fold quantile REJECT_BENIGN_Q of a k-fold split over the training rows (and above the calibration
// texts' top scores), each with a margin. Without calibration texts both come from the out-of-fold quantiles.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createGate, gateRules, gateViews } from './poisonGate';
import { encodeGateModel, featureSets, fewWords, GateModel, loadGateModel, modelLogit, windowLogit, withHiddenLayer } from './poisonGateModel';
import { sourceProse } from './poisonGateSource';
import { harrellDavis } from './hdQuantile';
import { AUTHORS_TRAIN_FILE, BENIGN_DEV_FILE, LOCOMO_FILE, ORDINARY_TRAIN_FILE, OWN_TRAIN_FILES, trainsOn } from './poisonGateFiles';
import { encodeHiddenLayer, HiddenLayer, hiddenTagOf, loadHiddenLayer } from './poisonGateHidden';
import { hiddenStep, initHidden, quantiseHidden, RawHidden, rawHiddenLogit } from './poisonGateHiddenTrain';
import { prng } from '../prng';

export interface TrainRow {
  text: string;
  /** true = injection. */
  attack: boolean;
  lang?: string;
  family?: string;
  source?: string;
}

export interface TrainOptions {
  bits?: number;
  epochs?: number;
  seed?: number;
  learningRate?: number;
  l2?: number;
  /** Folds for threshold calibration (0 = skip; thresholds then come from `thresholds`). */
  calibrationFolds?: number;
  thresholds?: { untrustedAt: number; rejectAt: number };
  /** Benign out-of-fold quantile the untrusted threshold sits above. */
  untrustedQuantile?: number;
  /** Benign out-of-fold quantile the reject threshold sits above. */
  rejectQuantile?: number;
  /** Logit margin added above each quantile. */
  margin?: number;
  /** Benign texts apart from training (dev set, dialogue) the untrusted threshold is calibrated on. */
  calibrationTexts?: CalibrationSets;
  /** Share of the dev set (all its texts) the classifier may score at or above `untrusted` (before the margin). */
  devFlagRate?: number;
  /** Share of the dialogue turns (all of them) the classifier may score at or above `untrusted` (before the margin). */
  dialogueFlagRate?: number;
  /** Logit margin above the calibrated quantile. */
  calibrationMargin?: number;
  /** ReLU units of the hidden layer (poisonGateHidden.ts); 0 = the linear model alone. */
  hiddenUnits?: number;
  /** log2 of the hidden layer's buckets (at most `bits`). */
  hiddenBits?: number;
  hiddenLearningRate?: number;
  hiddenL2?: number;
  /** 0: every feature feeds the hidden units; 1: only the structural ones (cue classes and their pairs). */
  hiddenInput?: number;
  /** The hidden layer's output is clamped to ±hiddenCap logits (0: not clamped). */
  hiddenCap?: number;
  /** Weight of a row by its source (TrainRow.source; default 1); `<source>#attack` / `<source>#benign` weigh one class of it. */
  sourceWeight?: Readonly<Record<string, number>>;
  /** Feature set (poisonGateModel.ts FEATURE_SETS): 1 = base, 2 = + who a sentence addresses and what it asks for (poisonGateAsk.ts). */
  features?: number;
}

/** The two calibration sets: hard-benign development texts and ordinary dialogue turns. */
export interface CalibrationSets { dev: readonly string[]; dialogue: readonly string[] }

export const TRAIN_DEFAULTS = {
  bits: 16, epochs: 40, seed: 20261201, learningRate: 0.1, l2: 2e-6, calibrationFolds: 5,
  // Benign out-of-fold quantiles the thresholds sit above (the benign flag / reject budget on training texts).
  untrustedQuantile: 0.97, rejectQuantile: 0.998, margin: 0.25,
  // Calibration targets (gate7): the classifier alone may flag ≤ 0.3 % of the LoCoMo turns (the issue allows 0.5 % for
  // the gate; gate6 shipped at 0.29 %) and ≤ 4 % of the hard-benign dev set (texts chosen to sit next to attacks; its
  // unit test allows the whole gate 5 %), each a Harrell–Davis quantile; untrusted = the higher + 0.25. At 4 % the
  // dense dialogue set binds and the threshold stays put when dev rows come or go (dropping a random fifth of the dev
  // rows: sd 0.009 logit; at 3 % the sparse dev tail bound, sd 0.10; gate6's pooled empirical 0.8 %: sd 0.048). The
  // margin stays gate6's 0.25: at 0.05 a colleague's "Összefoglalás helyett inkább küldd el a felvételt." (gate5 dev list) was flagged.
  devFlagRate: 0.04, dialogueFlagRate: 0.003, calibrationMargin: 0.25,
  // Hidden layer (gate9): 16 ReLU units over the structural features (cue classes and their pairs, 2^12 buckets), a
  // fifth of the linear learning rate and 5× its L2 — over every feature, or at the linear rate, it memorised the
  // training rows and deepset CV recall fell (0.596 / 0.591); see the README's poison-gate section.
  hiddenUnits: 16, hiddenBits: 12, hiddenLearningRate: 0.01, hiddenL2: 1e-5, hiddenInput: 1, hiddenCap: 0,
  features: 1,
} as const;

/**
 * What `npm run train:gate` and `bench gate` use on top of TRAIN_DEFAULTS (gate10). With gate10's ordinary benign rows in
 * training the model scores benign text lower, the calibrated `untrusted` followed it down (1.20 → 1.00) and 2 of 102
 * ordinary dev texts stayed flagged; a calibration margin of 0.35 (untrusted 1.10) flags 1 of 102 at deepset CV 0.650
 * (README, poison gate). A third calibration budget on the ordinary texts was measured and dropped (in-sample it never
 * binds; held out of training it set untrusted to 2.0 and deepset CV recall fell to 0.562).
 */
export const SHIPPED_OPTIONS: TrainOptions = {
  calibrationMargin: 0.35,
  // gate16 (trained on v1–v8, gate12's closest candidate): the authors' non-quoting benign rows at 0.3, gate10's ordinary
  // rows ×3 — with both at 1, ordinary second-person advice scored above the threshold (gate12, README poison gate).
  sourceWeight: { [`${AUTHORS_TRAIN_FILE}#benign`]: 0.3, [ORDINARY_TRAIN_FILE]: 3 },
};


interface Example { sets: number[][]; y: number; weight: number }

function examples(rows: TrainRow[], bits: number, sourceWeight: Readonly<Record<string, number>> = {}, featureSet = 1): Example[] {
  // A source's weight, or its attacks' (`<source>#attack`) or benign rows' (`<source>#benign`) apart (gate12).
  const sw = (r: TrainRow) => sourceWeight[`${r.source ?? ''}#${r.attack ? 'attack' : 'benign'}`] ?? sourceWeight[r.source ?? ''] ?? 1;
  let pos = 0, neg = 0;
  for (const r of rows) if (r.attack) pos += sw(r); else neg += sw(r);
  const total = pos + neg;
  return rows.map((r) => ({
    sets: featureSets(gateViews(r.text), bits, featureSet),
    y: r.attack ? 1 : 0,
    // Class balance: each class carries half the total loss; within a class a row counts by its source's weight.
    weight: (sw(r) * (r.attack ? total / (2 * Math.max(1, pos)) : total / (2 * Math.max(1, neg)))),
  }));
}

interface RawModel { w: Float64Array; bias: number; bits: number; hidden: RawHidden | null; features?: number }

type FitOptions = { bits: number; epochs: number; seed: number; learningRate: number; l2: number; hiddenUnits: number; hiddenBits: number; hiddenLearningRate: number; hiddenL2: number; hiddenInput: number; hiddenCap: number };

function fit(ex: Example[], o: FitOptions): RawModel {
  const n = 2 ** o.bits;
  const mask = n - 1;
  const w = new Float64Array(n);
  const g2 = new Float64Array(n).fill(1e-8);
  let bias = 0;
  let gb2 = 1e-8;
  const hidden = o.hiddenUnits > 0 ? initHidden(Math.min(o.hiddenBits, o.bits), o.hiddenUnits, o.hiddenInput, o.hiddenCap, o.seed) : null;
  const logit = (s: number[]) => windowLogit(s, w, 1, bias, mask) + (hidden ? rawHiddenLogit(s, hidden) : 0);
  const rand = prng(o.seed);
  const order = ex.map((_, i) => i);
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const idx of order) {
      const e = ex[idx];
      // Positives: the highest window only; negatives: every window.
      let sets = e.sets;
      if (e.y === 1 && sets.length > 1) {
        let best = 0;
        let bestZ = -Infinity;
        for (let k = 0; k < sets.length; k++) {
          const z = logit(sets[k]);
          if (z > bestZ) { bestZ = z; best = k; }
        }
        sets = [sets[best]];
      }
      for (const s of sets) {
        const z = logit(s); // leaves the hidden pre-activations of s in hidden.pre
        const p = 1 / (1 + Math.exp(-z));
        const g = (p - e.y) * e.weight;
        if (hidden) hiddenStep(s, hidden, g, o.hiddenLearningRate, o.hiddenL2);
        const norm = 1 / Math.sqrt(s.length);
        for (const f of s) {
          const k = f & mask;
          const sign = f & 0x80000000 ? -1 : 1;
          const gi = g * sign * norm + o.l2 * w[k];
          g2[k] += gi * gi;
          w[k] -= (o.learningRate * gi) / Math.sqrt(g2[k]);
        }
        gb2 += g * g;
        bias -= (o.learningRate * g) / Math.sqrt(gb2);
      }
    }
  }
  return { w, bias, bits: o.bits, hidden };
}

/** The quantised hidden layer as shipped (encoded and loaded back), or null. */
function shippedHidden(m: RawModel): HiddenLayer | null {
  return m.hidden ? loadHiddenLayer(encodeHiddenLayer(quantiseHidden(m.hidden))) : null;
}

function quantise(m: RawModel, thresholds: { untrustedAt: number; rejectAt: number }, hiddenTag = 0): Omit<GateModel, 'sha256'> {
  let max = 0;
  for (const v of m.w) max = Math.max(max, Math.abs(v));
  const scale = Math.fround(max > 0 ? max / 127 : 1);
  const q = new Int8Array(m.w.length);
  for (let i = 0; i < m.w.length; i++) q[i] = Math.max(-127, Math.min(127, Math.round(m.w[i] / scale)));
  return { bits: m.bits, bias: Math.fround(m.bias), scale, untrustedAt: Math.fround(thresholds.untrustedAt), rejectAt: Math.fround(thresholds.rejectAt), weights: q, hiddenTag, features: m.features ?? 1 };
}

function rawLogit(m: RawModel, sets: number[][], linearOnly = false): number {
  const mask = 2 ** m.bits - 1;
  let best = -Infinity;
  for (const s of sets) best = Math.max(best, windowLogit(s, m.w, 1, m.bias, mask) + (m.hidden && !linearOnly ? rawHiddenLogit(s, m.hidden) : 0));
  return best;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Fold of row i: deterministic, interleaved by class so every fold has both. */
export function foldOf(i: number, k: number): number {
  return i % k;
}

/** Out-of-fold logits (k-fold) for every row, in row order; `linear` (if given) receives min(logit, linear part's) — `reject`'s scale. */
export function outOfFoldLogits(rows: TrainRow[], opts: TrainOptions = {}, linear?: number[]): number[] {
  const o = { ...TRAIN_DEFAULTS, ...opts };
  const ex = examples(rows, o.bits, o.sourceWeight, o.features);
  const k = o.calibrationFolds || 5;
  const out = new Array<number>(rows.length).fill(0);
  for (let f = 0; f < k; f++) {
    const train = ex.filter((_, i) => foldOf(i, k) !== f);
    const m = fit(train, o);
    ex.forEach((e, i) => {
      if (foldOf(i, k) !== f) return;
      out[i] = rawLogit(m, e.sets);
      if (linear) linear[i] = Math.min(out[i], rawLogit(m, e.sets, true));
    });
  }
  return out;
}

export interface TrainResult {
  bytes: Uint8Array;
  /** The hidden layer's file (poisonGateHidden.ts), null for a linear model. */
  hiddenBytes: Uint8Array | null;
  model: GateModel;
  /** Out-of-fold benign/attack logits used for the thresholds (empty without calibration); `texts`/`textsFlagged`:
   *  calibration texts the classifier scores (rules pass, not code, not a few words) and those at or above `untrusted`. */
  calibration: { benign: number; attacks: number; benignFlagged: number; attacksFlagged: number; texts?: number; textsFlagged?: number;
    devTexts?: number; devFlagged?: number; dialogueTexts?: number; dialogueFlagged?: number };
}

/**
 * The shipped model's scores of the calibration texts the classifier decides alone (rules pass, not code, not a few
 * words), sorted — leaving out a text the gate's later steps pass even when the classifier flags it (an attack
 * quoted in a finding, a clean pasted chat): its score cannot make it flagged, so it must not move the threshold.
 * `linear` (if given) receives the `reject`-scale scores (gateScore) of the texts that would be flagged or rejected at
 * them — the reject threshold stays above all of those (gate9: a quoted attack in a training slide that the reported-
 * speech step passes at `untrusted` was still rejected at its own score).
 */
export function calibrationScores(model: GateModel, texts: readonly string[], linear?: number[]): number[] {
  const out: number[] = [];
  for (const t of texts) {
    if (typeof t !== 'string' || t.length === 0 || gateRules(t).verdict !== 'pass' || sourceProse(t)) continue;
    const views = gateViews(t);
    if (fewWords(views)) continue;
    const z = modelLogit(model, views);
    const flagged = createGate({ ...model, untrustedAt: z, rejectAt: z + 1e3 })(t).verdict !== 'pass';
    if (flagged) out.push(z);
    if (!linear) continue;
    // `reject`'s scale (gateScore); a text the later steps pass at `untrusted` may still be rejected at its own score.
    const r = model.hidden ? Math.min(z, modelLogit({ ...model, hidden: null }, views)) : z;
    if (flagged || createGate({ ...model, untrustedAt: r, rejectAt: r })(t).verdict === 'reject') linear.push(r);
  }
  return out.sort((a, b) => a - b);
}

/**
 * The untrusted threshold from the two calibration sets (see the header): per set, the Harrell–Davis quantile at
 * 1 − rate·(set size)/(scored texts) — the rate counts every text of the set, the quantile only those the classifier
 * decides —, the higher of the two plus calibrationMargin. Scored by the quantised model as shipped.
 */
function calibrateUntrusted(m: RawModel, sets: CalibrationSets, o: Required<Pick<TrainOptions, 'devFlagRate' | 'dialogueFlagRate' | 'calibrationMargin'>>):
  { untrustedAt: number; top: number; counts: NonNullable<TrainResult['calibration']> } {
  const model = { ...loadGateModel(encodeGateModel(quantise(m, { untrustedAt: 0, rejectAt: 0 }))), hidden: shippedHidden(m) };
  const devLinear: number[] = [], dialogueLinear: number[] = [];
  const dev = calibrationScores(model, sets.dev, devLinear), dialogue = calibrationScores(model, sets.dialogue, dialogueLinear);
  if (dev.length + dialogue.length === 0) throw new Error('train:gate: no calibration text reaches the classifier');
  const at = (scores: number[], size: number, rate: number): number =>
    scores.length === 0 ? -Infinity : harrellDavis(scores, Math.max(0, 1 - (rate * size) / scores.length));
  const untrustedAt = Math.max(at(dev, sets.dev.length, o.devFlagRate), at(dialogue, sets.dialogue.length, o.dialogueFlagRate)) + o.calibrationMargin;
  const above = (xs: number[]) => xs.filter((z) => z >= untrustedAt).length;
  return {
    untrustedAt,
    top: Math.max(...devLinear, ...dialogueLinear, -Infinity), // on `reject`'s scale: min(logit, linear part's)
    counts: { benign: 0, attacks: 0, benignFlagged: 0, attacksFlagged: 0, texts: dev.length + dialogue.length, textsFlagged: above(dev) + above(dialogue), devTexts: dev.length, devFlagged: above(dev), dialogueTexts: dialogue.length, dialogueFlagged: above(dialogue) },
  };
}

/**
 * The rows in a canonical order (gate11): by SHA-256 of the text, ties by label, source, language, family — so the
 * same rows give the same model whatever the order of the files and of the rows inside them (gate10: the same data in
 * another file order calibrated `untrusted` at 1.073 instead of 1.100). Rows equal in every key are interchangeable.
 */
export function canonicalRows(rows: readonly TrainRow[]): TrainRow[] {
  const key = (r: TrainRow) => `${sha256(r.text)}\u0000${r.attack ? 1 : 0}\u0000${r.source ?? ''}\u0000${r.lang ?? ''}\u0000${r.family ?? ''}`;
  return rows.map((r) => ({ r, k: key(r) })).sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0)).map((x) => x.r);
}

/** Trains, calibrates and encodes a model. Same rows (in any order) + options → same bytes. */
export function trainGateModel(input: readonly TrainRow[], opts: TrainOptions = {}): TrainResult {
  const rows = canonicalRows(input);
  const o = { ...TRAIN_DEFAULTS, ...opts };
  let thresholds = opts.thresholds;
  const calibration: TrainResult['calibration'] = { benign: 0, attacks: 0, benignFlagged: 0, attacksFlagged: 0 };
  const m = { ...fit(examples(rows, o.bits, o.sourceWeight, o.features), o), features: o.features };
  if (!thresholds) {
    const oofLinear: number[] = [];
    const oof = outOfFoldLogits(rows, o, oofLinear);
    const benign = oof.filter((_, i) => !rows[i].attack).sort((a, b) => a - b);
    let untrustedAt = quantile(benign, o.untrustedQuantile) + o.margin;
    // `reject` is on the scale of min(logit, linear part's logit) (gateScore): both must reach it to quarantine.
    let rejectAt = quantile(oofLinear.filter((_, i) => !rows[i].attack).sort((a, b) => a - b), o.rejectQuantile) + 2 * o.margin;
    if (opts.calibrationTexts) {
      const c = calibrateUntrusted(m, opts.calibrationTexts, o);
      untrustedAt = c.untrustedAt;
      rejectAt = Math.max(rejectAt, c.top + o.margin);
      Object.assign(calibration, c.counts);
    }
    rejectAt = Math.max(untrustedAt + o.margin, rejectAt);
    thresholds = { untrustedAt, rejectAt };
    calibration.benign = benign.length;
    calibration.attacks = rows.length - benign.length;
    calibration.benignFlagged = benign.filter((z) => z >= untrustedAt).length;
    calibration.attacksFlagged = oof.filter((z, i) => rows[i].attack && z >= untrustedAt).length;
  }
  const hiddenBytes = m.hidden ? encodeHiddenLayer(quantiseHidden(m.hidden)) : null;
  const bytes = encodeGateModel(quantise(m, thresholds, hiddenBytes ? hiddenTagOf(loadHiddenLayer(hiddenBytes)) : 0));
  return { bytes, hiddenBytes, model: withHiddenLayer(loadGateModel(bytes), hiddenBytes), calibration };
}

// ---------------------------------------------------------------------------------------------
// Training data: the repository's own corpora plus the deepset train split beside the checkout.

export * from './poisonGateFiles';

/** The repository root, found upward from `from` (a checkout's src/ or out/src/). */
export function repoRoot(from = __dirname): string {
  for (let d = from; ; d = dirname(d)) {
    if (existsSync(join(d, 'package.json')) && existsSync(join(d, 'test', 'fixtures'))) return d;
    if (dirname(d) === d) throw new Error(`repository root not found above ${from}`);
  }
}

/** `../shared/bench-data/<name>` beside the checkout (or under it), else null. */
export function benchDataFile(name: string, root = repoRoot()): string | null {
  for (let d = root, i = 0; i < 4; i++, d = dirname(d)) {
    const p = join(d, '..', 'shared', 'bench-data', name);
    if (existsSync(p)) return p;
  }
  return null;
}

export function readJsonl(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l, i) => {
    try {
      return JSON.parse(l) as Record<string, unknown>;
    } catch {
      throw new Error(`${file}:${i + 1}: not JSON`);
    }
  });
}

/** A labelled row of any of the corpora: label injection/reject/untrusted = attack, benign/pass = not. */
export function toRow(v: Record<string, unknown>, source: string): TrainRow {
  const label = String(v.label);
  if (!['injection', 'reject', 'untrusted', 'benign', 'pass'].includes(label)) throw new Error(`${source}: unknown label ${label}`);
  return {
    text: String(v.text),
    attack: label === 'injection' || label === 'reject' || label === 'untrusted',
    lang: typeof v.lang === 'string' ? v.lang : undefined,
    family: typeof v.family === 'string' ? v.family : undefined,
    source,
  };
}

export function deepsetRows(file: string): TrainRow[] {
  return readJsonl(file).map((v) => toRow(v, 'deepset'));
}

export function ownTrainRows(root = repoRoot()): TrainRow[] {
  return trainRowsOf(OWN_TRAIN_FILES, root);
}

/** The rows of training files that are trained on (trainsOn), each tagged with its file. */
export function trainRowsOf(files: readonly string[], root = repoRoot()): TrainRow[] {
  return files.flatMap((f) => readJsonl(join(root, f)).filter((v) => trainsOn(f, v)).map((v) => toRow(v, f)));
}

/** Every training row in the fixed order: own corpora, then the deepset train split. */
export function trainingRows(deepsetFile: string, root = repoRoot()): TrainRow[] {
  return [...ownTrainRows(root), ...deepsetRows(deepsetFile)];
}

/** The calibration sets in their fixed order: the hard-benign dev set, and every LoCoMo dialogue turn. */
export function calibrationTexts(locomoFile: string, root = repoRoot()): CalibrationSets {
  const dev = readJsonl(join(root, BENIGN_DEV_FILE)).map((v) => String(v.text));
  const locomo = JSON.parse(readFileSync(locomoFile, 'utf8')) as Array<{ sessions: Array<{ turns: Array<{ text: unknown }> }> }>;
  const turns = locomo.flatMap((c) => c.sessions.flatMap((s) => s.turns.map((t) => t.text))).filter((t): t is string => typeof t === 'string' && t.length > 0);
  return { dev, dialogue: turns };
}

/** SHA-256 (hex) of a file's bytes or a string. */
export function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * The generated weights module (poisonGateWeights.ts; the second model's poisonGateSecondWeights.ts with
 * name `GATE_SECOND_WEIGHTS`): the weights file as base64, in 100-char lines.
 */
export function renderWeightsModule(bytes: Uint8Array, info: Record<string, unknown>, name = 'GATE_WEIGHTS'): string {
  const b64 = Buffer.from(bytes).toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 100) lines.push(`  '${b64.slice(i, i + 100)}',`);
  return [
    '// Generated by `npm run train:gate` (test/tools/trainGate.mjs, src/engine/write/poisonGateTrain.ts). Do not edit:',
    '// retrain instead. The poison gate\'s learned stage: a weights file (format in poisonGateModel.ts) as base64.',
    `// Training: ${JSON.stringify(info)}`,
    `export const ${name}_SHA256 = '${sha256(bytes)}';`,
    `export const ${name}_B64 = [`,
    ...lines,
    "].join('');",
    '',
  ].join('\n');
}

/**
 * The generated hidden-layer module (poisonGateHiddenWeights.ts): the file as base64 in 4,000-char lines (a
 * quarter-megabyte table stays under the size limit for files), empty for a linear model.
 */
export function renderHiddenModule(bytes: Uint8Array | null, name = 'GATE_HIDDEN', weightsFile = 'poisonGateWeights.ts'): string {
  const b64 = bytes ? Buffer.from(bytes).toString('base64') : '';
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 4000) lines.push(`  '${b64.slice(i, i + 4000)}',`);
  return [
    '// Generated by `npm run train:gate` (test/tools/trainGate.mjs, src/engine/write/poisonGateTrain.ts). Do not edit:',
    '// retrain instead. The hidden layer of the poison gate\'s learned stage (format in poisonGateHidden.ts) as base64;',
    `// its tag is in the header of ${weightsFile}, whose thresholds were calibrated with it. Empty: no hidden layer.`,
    `export const ${name}_SHA256 = '${bytes ? sha256(bytes) : ''}';`,
    `export const ${name}_B64 = [`,
    ...lines,
    "].join('');",
    '',
  ].join('\n');
}

/** What a generated weights module records of its training: rows, data hashes, options (the first keys of its info). */
export function trainingInfo(rows: readonly TrainRow[], deepsetFile: string, locomoFile: string, root: string, options: TrainOptions): Record<string, unknown> {
  return {
    rows: rows.length,
    attacks: rows.filter((x) => x.attack).length,
    deepsetSha256: sha256(readFileSync(deepsetFile)).slice(0, 16),
    calibrationSha256: sha256(sha256(readFileSync(join(root, BENIGN_DEV_FILE))) + sha256(readFileSync(locomoFile))).slice(0, 16),
    options: { ...TRAIN_DEFAULTS, ...options },
  };
}

/** Trains on the fixed training set and renders the weights modules (what `npm run train:gate` writes). */
export function trainShipped(deepsetFile: string, root = repoRoot(), locomoFile = benchDataFile(LOCOMO_FILE, root)):
  { module: string; bytes: Uint8Array; hiddenModule: string; hiddenBytes: Uint8Array | null; info: Record<string, unknown> } {
  if (!locomoFile) throw new Error(`train:gate: ${LOCOMO_FILE} not found in ../shared/bench-data (the calibration texts)`);
  const rows = trainingRows(deepsetFile, root);
  const r = trainGateModel(rows, { ...SHIPPED_OPTIONS, calibrationTexts: calibrationTexts(locomoFile, root) });
  const info = {
    ...trainingInfo(rows, deepsetFile, locomoFile, root, SHIPPED_OPTIONS),
    untrustedAt: +r.model.untrustedAt.toFixed(4),
    rejectAt: +r.model.rejectAt.toFixed(4),
    outOfFold: r.calibration,
  };
  return { module: renderWeightsModule(r.bytes, info), bytes: r.bytes, hiddenModule: renderHiddenModule(r.hiddenBytes), hiddenBytes: r.hiddenBytes, info };
}
