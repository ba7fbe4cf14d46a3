// `bench gate`: the poison gate before (rules only) and after (rules + learned stage), per language and
// family, on (a) the deepset train split — the learned stage cross-validated: each fold scored by the two models
// trained without it (same options as the shipped ones, the second calibrated against that fold's first; gate24) —, (b) the own held-out corpus (never trained or
// tuned on), (c) the LoCoMo dialogue turns as the false-positive check; plus throughput in texts/s.
// Data: the deepset train split (--deepset FILE, default ../shared/bench-data beside the checkout) and LoCoMo
// (--data FILE, same default); 5 folds. The held-out corpus is reported whole and per part ("v1": the
// original rows; "v2", "v3": rows added later, each written blind before its own scores were looked at).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { availableParallelism } from 'node:os';
import { GatePool } from '../../src/engine/write/gatePool';
import { createGate, gate, gateFromWeights, gateModelStatus, gateRules, GateFn, GateResult } from '../../src/engine/write/poisonGate';
import { GATE_WEIGHTS_B64 } from '../../src/engine/write/poisonGateWeights';
import { GATE_HIDDEN_B64 } from '../../src/engine/write/poisonGateHiddenWeights';
import {
  ADVICE_DEV_FILE, ATTACK_DEV_FILE, HARDBENIGN_DEV_FILE, HBSECRETS_DEV_FILE, AUTHORS_DEV_FILE, BENIGN_DEV_FILE, HARD_DEV_FILE, ORDINARY_DEV_FILE, benchDataFile, calibrationTexts, DEEPSET_TRAIN_FILE, deepsetRows, foldOf, OWN_HELDOUT_FILE, ownTrainRows, readJsonl, SHIPPED_OPTIONS, repoRoot, toRow, trainGateModel, TrainRow,
} from '../../src/engine/write/poisonGateTrain';
import { calibrateSecond, SECOND_OPTIONS, secondCalibrationSets, secondTrainRows } from '../../src/engine/write/poisonGateSecond';
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

/** Texts/s through an import's path: chunks of 500 (the import's), inline vs the gate pool, same process. */
async function pooledThroughput(texts: string[], minMs = 3000): Promise<Record<string, number>> {
  const chunks: string[][] = [];
  for (let i = 0; i < texts.length; i += 500) chunks.push(texts.slice(i, i + 500));
  const run = async (pool: GatePool) => {
    await pool.gateMany(chunks[0]!); // warm-up (and the workers' start)
    let n = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < minMs) for (const c of chunks) { n += (await pool.gateMany(c)).length; }
    return Math.round(n / ((performance.now() - t0) / 1000));
  };
  const inline = new GatePool({ workers: 0 });
  const pool = new GatePool();
  try {
    const a = await run(inline);
    const b = await run(pool);
    const a2 = await run(inline); // alternated: the machine's load moves
    const base = (a + a2) / 2;
    return { workers: pool.running, inline: Math.round(base), pool: b, ratio: Number((b / base).toFixed(2)), cores: availableParallelism() };
  } finally {
    await pool.close();
  }
}

function throughput(fn: GateFn, texts: string[], minMs = 1500): number {
  for (const t of texts.slice(0, 200)) fn(t); // warm-up
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < minMs) for (const t of texts) { fn(t); n++; }
  return Math.round(n / ((performance.now() - t0) / 1000));
}

/** The shipped gate without its second model (gate24). */
const firstModelGate = (): GateFn => gateFromWeights(GATE_WEIGHTS_B64, GATE_HIDDEN_B64).gate;

export async function benchGate(ctx: BenchContext): Promise<Record<string, unknown>> {
  const root = repoRoot(__dirname);
  const deepsetArg = ctx.args.deepset;
  if (deepsetArg === true) throw new Error('bench gate: --deepset needs a FILE');
  if (typeof deepsetArg === 'string' && !existsSync(deepsetArg)) throw new Error(`bench gate: --deepset ${deepsetArg}: no such file`);
  const deepsetFile = typeof deepsetArg === 'string' ? deepsetArg : benchDataFile(DEEPSET_TRAIN_FILE, root);
  const folds = 5;
  const status = gateModelStatus();
  const result: Record<string, unknown> = { model: status };

  // (a) deepset train split, the learned stage cross-validated.
  if (deepsetFile) {
    ctx.log(`gate: deepset ${folds}-fold cross-validation`);
    const ds = deepsetRows(deepsetFile);
    const own = ownTrainRows(root), second = secondTrainRows(root);
    const cal = calibrationTexts(locomoDataFile(ctx.args), root); // calibrated as the shipped model is
    const sets = secondCalibrationSets(cal, root);
    const v: Verdicts = [], firstOnly: Verdicts = [];
    for (let f = 0; f < folds; f++) {
      const keep = ds.filter((_, i) => foldOf(i, folds) !== f);
      const { model } = trainGateModel([...own, ...keep], { ...SHIPPED_OPTIONS, calibrationTexts: cal });
      const s = trainGateModel([...second, ...keep], { ...SECOND_OPTIONS, calibrationTexts: cal });
      const g = createGate(model, {}, calibrateSecond(model, s.bytes, s.hiddenBytes, sets).model), g1 = createGate(model);
      ds.forEach((row, i) => {
        if (foldOf(i, folds) !== f) return;
        const before = gateRules(row.text);
        v.push({ row, before, after: g(row.text) });
        firstOnly.push({ row, before, after: g1(row.text) });
      });
    }
    result.deepsetTrainCrossValidated = { folds, byLang: table(v, (r) => r.lang ?? 'und'), firstModelOnly: table(firstOnly, (r) => r.lang ?? 'und') };
    if (ctx.args.confusion) {
      result.deepsetConfusion = v.filter((x) => (x.after.verdict !== 'pass') !== x.row.attack)
        .map((x) => ({ lang: x.row.lang, attack: x.row.attack, verdict: x.after.verdict, text: x.row.text.slice(0, 90).replace(/\s+/g, ' ') }));
    }
  } else {
    result.deepsetTrainCrossValidated = { skipped: `${DEEPSET_TRAIN_FILE} not found beside the checkout (../shared/bench-data): pass --deepset FILE` };
  }

  // (b) own held-out corpus, the shipped gate.
  const heldRaw = readJsonl(join(root, OWN_HELDOUT_FILE));
  const held = heldRaw.map((x) => toRow(x, OWN_HELDOUT_FILE));
  const partOf = heldRaw.map((x) => (typeof x.part === 'string' ? x.part : 'v1'));
  const hvAll: Verdicts = held.map((row) => ({ row, before: gateRules(row.text), after: gate(row.text) }));
  const heldReport = (hv: Verdicts) => {
    const missedCells = new Set<string>();
    const caughtCells = new Set<string>();
    for (const { row, after } of hv) if (row.attack) (after.verdict !== 'pass' ? caughtCells : missedCells).add(`${row.lang}/${row.family}`);
    return {
      byLang: table(hv, (r) => r.lang ?? 'und'),
      byFamily: table(hv, (r) => (r.attack ? r.family ?? 'attack' : `benign:${r.family ?? ''}`)),
      byLangFamily: table(hv.filter((v) => v.row.attack), (r) => `${r.lang}/${r.family}`),
      familyLangCellsNeverCaught: [...missedCells].filter((c) => !caughtCells.has(c)).sort(),
      detectors: countDetectors(hv),
    };
  };
  const parts = [...new Set(partOf)].sort();
  result.ownHeldout = {
    all: heldReport(hvAll),
    ...Object.fromEntries(parts.map((p) => [p, heldReport(hvAll.filter((_, i) => partOf[i] === p))])),
  };
  if (ctx.args.confusion) {
    // Misclassified rows (texts shortened) for the notes: attacks passed, benign texts flagged.
    const short = (t: string) => (t.length > 90 ? `${t.slice(0, 87)}…` : t).replace(/\s+/g, ' ');
    result.ownHeldoutConfusion = hvAll
      .map((v, i) => ({ v, part: partOf[i] }))
      .filter(({ v }) => (v.after.verdict !== 'pass') !== v.row.attack)
      .map(({ v, part }) => ({ part, lang: v.row.lang, family: v.row.family, attack: v.row.attack, verdict: v.after.verdict, detector: v.after.detector, text: short(v.row.text) }));
  }

  // Benign development sets: verdicts per language, family and detector; with --confusion the flagged texts, shortened.
  const benignSet = (file: string, key: string) => {
    const v: Verdicts = readJsonl(join(root, file)).map((x) => toRow(x, file)).map((row) => ({ row, before: gateRules(row.text), after: gate(row.text) }));
    result[key] = { byLang: table(v, (r) => r.lang ?? 'und'), byFamily: table(v, (r) => r.family ?? ''), detectors: countDetectors(v) };
    if (ctx.args.confusion) {
      result[`${key}Flagged`] = v.filter((x) => x.after.verdict !== 'pass')
        .map((x) => ({ lang: x.row.lang, family: x.row.family, verdict: x.after.verdict, detector: x.after.detector, text: x.row.text.slice(0, 90).replace(/\s+/g, ' ') }));
    }
  };
  // (b2) own hard-benign development set (gate6; tuned on and calibrating the threshold — a dev figure, not a blind one).
  benignSet(BENIGN_DEV_FILE, 'benignDev');
  // (b2b) ordinary benign dev half (gate10: e-mails, code answers, tables, questions, dialogue, notes, issues; never
  // trained on, not used for calibration).
  benignSet(ORDINARY_DEV_FILE, 'ordinaryDev');
  // (b2c) hard-benign dev half (gate11: preferences, instructions between people, decisions, security quotes, app prompts
  // in code, sysadmin, bot commands, meetings; never trained on, not used for calibration).
  benignSet(HARD_DEV_FILE, 'hardDev');
  // (b2d) ordinary second-person advice dev third (gate13: e-mails, chat answers, forum replies, how-tos, cooking, travel,
  // health, money, study in five languages; never trained on, not used for calibration).
  benignSet(ADVICE_DEV_FILE, 'adviceDev');
  // (b2e) hard-benign dev third next to requests aimed at the assistant (gate14: docs on prompts, meetings, security
  // write-ups quoting attacks, own-data questions, credential requests through proper channels; never trained on, not
  // used for calibration).
  benignSet(HARDBENIGN_DEV_FILE, 'hardBenignDev');
  // (b2f) docs and sysadmin notes about secrets, keys, system prompts and assistant configuration, quoting no attack
  // (gate15; dev third, never trained on, not used for calibration).
  benignSet(HBSECRETS_DEV_FILE, 'secretsDocsDev');

  // (b3) own attack development set (gate7: memory poisoning and hijacking in eight carriers, five languages; tuned on —
  // a dev figure, not a blind one). `carrier` and `addressee` ("none": no AI is addressed) are extra keys of its rows.
  const attRaw = readJsonl(join(root, ATTACK_DEV_FILE));
  const av: Verdicts = attRaw.map((x) => toRow(x, ATTACK_DEV_FILE)).map((row) => ({ row, before: gateRules(row.text), after: gate(row.text) }));
  const extra = new Map(av.map((v, i) => [v.row, attRaw[i]]));
  result.attackDev = {
    byLang: table(av, (r) => r.lang ?? 'und'),
    byFamily: table(av, (r) => r.family ?? ''),
    byLangFamily: table(av, (r) => `${r.lang}/${r.family}`),
    byCarrier: table(av, (r) => String(extra.get(r)?.carrier ?? '')),
    byAddressee: table(av, (r) => (extra.get(r)?.addressee === 'none' ? 'no AI addressed' : 'AI addressed')),
    detectors: countDetectors(av),
  };
  if (ctx.args.confusion) {
    result.attackDevMissed = av.filter((x) => x.after.verdict === 'pass')
      .map((x) => ({ lang: x.row.lang, family: x.row.family, text: x.row.text.slice(0, 90).replace(/\s+/g, ' ') }));
  }

  // (b4) authors dev set (part v9 of the former held-out file, a third independent author; benign-heavy: hard-benign
  // look-alikes and attacks in ten families; never trained on, not calibrated on — a dev figure, not a blind one).
  // `--authors-confusion` lists its misclassified rows alone (without the held-out ones `--confusion` prints).
  result.authorsDev = authorsDev(root, ctx.args.confusion === true || ctx.args['authors-confusion'] === true);

  // (c) LoCoMo dialogue turns: every one is benign.
  const locomo = JSON.parse(readFileSync(locomoDataFile(ctx.args), 'utf8')) as Array<{ sessions: Array<{ turns: Array<{ text: string }> }> }>;
  const turns = locomo.flatMap((c) => c.sessions.flatMap((s) => s.turns.map((t) => t.text))).filter((t) => typeof t === 'string' && t.length > 0);
  const lv: Verdicts = turns.map((text) => ({ row: { text, attack: false }, before: gateRules(text), after: gate(text) }));
  result.locomoTurns = { ...table(lv, () => 'turns').all as object, detectors: countDetectors(lv) };
  if (ctx.args.confusion) {
    result.locomoFlagged = lv.filter((v) => v.after.verdict !== 'pass').map((v) => ({ verdict: v.after.verdict, detector: v.after.detector, text: v.row.text.slice(0, 90) }));
  }

  // Throughput on LoCoMo turns (ordinary dialogue) and on the held-out corpus (longer, mixed).
  ctx.log('gate: throughput');
  result.throughputTextsPerSec = {
    // after: the shipped gate (rules, first model, second model); firstModel: without the second (gate24's cost).
    locomo: { before: throughput(gateRules, turns), after: throughput(gate, turns), firstModel: throughput(firstModelGate(), turns) },
    ownHeldout: { before: throughput(gateRules, held.map((r) => r.text)), after: throughput(gate, held.map((r) => r.text)) },
    // An import's path (engine/write/gatePool.ts): worker threads plus the calling thread.
    importPath: await pooledThroughput(turns),
  };
  return result;
}

/** The headline families: human-written hijacking and extraction attacks. */
const HIJACK_EXTRACTION = new Set(['hijack', 'extraction']);

/** `bench gate`'s authors dev block: recall per language and family, hijack+extraction recall, benign flag/reject rates. */
function authorsDev(root: string, confusion: boolean): Record<string, unknown> {
  const v: Verdicts = readJsonl(join(root, AUTHORS_DEV_FILE)).map((x) => toRow(x, AUTHORS_DEV_FILE))
    .map((row) => ({ row, before: gateRules(row.text), after: gate(row.text) }));
  const he = v.filter((x) => x.row.attack && HIJACK_EXTRACTION.has(x.row.family ?? ''));
  const out: Record<string, unknown> = {
    byLang: table(v, (r) => r.lang ?? 'und'),
    byFamily: table(v, (r) => (r.attack ? r.family ?? 'attack' : `benign:${r.family ?? ''}`)),
    hijackExtraction: table(he, (r) => r.lang ?? 'und').all,
    detectors: countDetectors(v),
  };
  if (confusion) {
    out.confusion = v.filter((x) => (x.after.verdict !== 'pass') !== x.row.attack)
      .map((x) => ({ lang: x.row.lang, family: x.row.family, attack: x.row.attack, verdict: x.after.verdict, detector: x.after.detector, text: x.row.text.slice(0, 90).replace(/\s+/g, ' ') }));
  }
  return out;
}

function countDetectors(v: Verdicts): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { after } of v) if (after.detector) out[`${after.verdict}:${after.detector}`] = (out[`${after.verdict}:${after.detector}`] ?? 0) + 1;
  return out;
}
