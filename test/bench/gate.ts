// `bench gate`: the poison gate before (rules only) and after (rules + learned stage), per language and
// family, on (a) the deepset train split — the learned stage cross-validated: each fold scored by a model
// trained without it (same options as the shipped one) —, (b) the own held-out corpus (never trained or
// tuned on), (c) the LoCoMo dialogue turns as the false-positive check; plus throughput in texts/s.
// Data: the deepset train split and LoCoMo from ../shared/bench-data beside the checkout (--data FILE for
// LoCoMo); 5 folds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createGate, gate, gateModelStatus, gateRules, GateFn, GateResult } from '../../src/engine/write/poisonGate';
import {
  benchDataFile, DEEPSET_TRAIN_FILE, deepsetRows, foldOf, OWN_HELDOUT_FILE, ownTrainRows, readJsonl, repoRoot, toRow, trainGateModel, TrainRow,
} from '../../src/engine/write/poisonGateTrain';
import { BenchContext, locomoDataFile, round } from './harness';

interface Cell { n: number; attacks: number; tp: number; fp: number; rejectedBenign: number; rejectedAttacks: number }

const empty = (): Cell => ({ n: 0, attacks: 0, tp: 0, fp: 0, rejectedBenign: 0, rejectedAttacks: 0 });

function add(c: Cell, attack: boolean, r: GateResult): void {
  c.n++;
  const flagged = r.verdict !== 'pass';
  if (attack) {
    c.attacks++;
    if (flagged) c.tp++;
    if (r.verdict === 'reject') c.rejectedAttacks++;
  } else {
    if (flagged) c.fp++;
    if (r.verdict === 'reject') c.rejectedBenign++;
  }
}

/** precision / recall over attacks, flag and reject rates over benign texts. */
function report(c: Cell) {
  const benign = c.n - c.attacks;
  return {
    n: c.n,
    attacks: c.attacks,
    precision: c.tp + c.fp ? round(c.tp / (c.tp + c.fp), 3) : null,
    recall: c.attacks ? round(c.tp / c.attacks, 3) : null,
    benignFlagRate: benign ? round(c.fp / benign, 4) : null,
    benignRejectRate: benign ? round(c.rejectedBenign / benign, 4) : null,
  };
}

type Verdicts = Array<{ row: TrainRow; before: GateResult; after: GateResult }>;

function table(v: Verdicts, key: (r: TrainRow) => string) {
  const groups = new Map<string, { before: Cell; after: Cell }>();
  const all = { before: empty(), after: empty() };
  for (const { row, before, after } of v) {
    const k = key(row);
    if (!groups.has(k)) groups.set(k, { before: empty(), after: empty() });
    const g = groups.get(k)!;
    add(g.before, row.attack, before);
    add(g.after, row.attack, after);
    add(all.before, row.attack, before);
    add(all.after, row.attack, after);
  }
  const out: Record<string, unknown> = { all: { before: report(all.before), after: report(all.after) } };
  for (const k of [...groups.keys()].sort()) out[k] = { before: report(groups.get(k)!.before), after: report(groups.get(k)!.after) };
  return out;
}

function throughput(fn: GateFn, texts: string[], minMs = 1500): number {
  for (const t of texts.slice(0, 200)) fn(t); // warm-up
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < minMs) for (const t of texts) { fn(t); n++; }
  return Math.round(n / ((performance.now() - t0) / 1000));
}

export async function benchGate(ctx: BenchContext): Promise<Record<string, unknown>> {
  const root = repoRoot(__dirname);
  const deepsetFile = benchDataFile(DEEPSET_TRAIN_FILE, root);
  const folds = 5;
  const status = gateModelStatus();
  const result: Record<string, unknown> = { model: status };

  // (a) deepset train split, the learned stage cross-validated.
  if (deepsetFile) {
    ctx.log(`gate: deepset ${folds}-fold cross-validation`);
    const ds = deepsetRows(deepsetFile);
    const own = ownTrainRows(root);
    const v: Verdicts = [];
    for (let f = 0; f < folds; f++) {
      const { model } = trainGateModel([...own, ...ds.filter((_, i) => foldOf(i, folds) !== f)]);
      const g = createGate(model);
      ds.forEach((row, i) => { if (foldOf(i, folds) === f) v.push({ row, before: gateRules(row.text), after: g(row.text) }); });
    }
    result.deepsetTrainCrossValidated = { folds, byLang: table(v, (r) => r.lang ?? 'und') };
  } else {
    result.deepsetTrainCrossValidated = { skipped: `${DEEPSET_TRAIN_FILE} not found beside the checkout (../shared/bench-data)` };
  }

  // (b) own held-out corpus, the shipped gate.
  const held = readJsonl(join(root, OWN_HELDOUT_FILE)).map((x) => toRow(x, OWN_HELDOUT_FILE));
  const hv: Verdicts = held.map((row) => ({ row, before: gateRules(row.text), after: gate(row.text) }));
  const missedCells = new Set<string>();
  const caughtCells = new Set<string>();
  for (const { row, after } of hv) if (row.attack) (after.verdict !== 'pass' ? caughtCells : missedCells).add(`${row.lang}/${row.family}`);
  result.ownHeldout = {
    byLang: table(hv, (r) => r.lang ?? 'und'),
    byFamily: table(hv, (r) => (r.attack ? r.family ?? 'attack' : `benign:${r.family ?? ''}`)),
    familyLangCellsNeverCaught: [...missedCells].filter((c) => !caughtCells.has(c)).sort(),
    detectors: countDetectors(hv),
  };

  // (c) LoCoMo dialogue turns: every one is benign.
  const locomo = JSON.parse(readFileSync(locomoDataFile(ctx.args), 'utf8')) as Array<{ sessions: Array<{ turns: Array<{ text: string }> }> }>;
  const turns = locomo.flatMap((c) => c.sessions.flatMap((s) => s.turns.map((t) => t.text))).filter((t) => typeof t === 'string' && t.length > 0);
  const lv: Verdicts = turns.map((text) => ({ row: { text, attack: false }, before: gateRules(text), after: gate(text) }));
  result.locomoTurns = { ...table(lv, () => 'turns').all as object, detectors: countDetectors(lv) };

  // Throughput on LoCoMo turns (ordinary dialogue) and on the held-out corpus (longer, mixed).
  ctx.log('gate: throughput');
  result.throughputTextsPerSec = {
    locomo: { before: throughput(gateRules, turns), after: throughput(gate, turns) },
    ownHeldout: { before: throughput(gateRules, held.map((r) => r.text)), after: throughput(gate, held.map((r) => r.text)) },
  };
  return result;
}

function countDetectors(v: Verdicts): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { after } of v) if (after.detector) out[`${after.verdict}:${after.detector}`] = (out[`${after.verdict}:${after.detector}`] ?? 0) + 1;
  return out;
}
