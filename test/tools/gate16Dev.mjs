// gate16's dev harness: scores a gate on the dev sets only (never gate-heldout.jsonl). Usage after `node build.mjs`:
//   node test/tools/gate16Dev.mjs [--config CFG.json] [--cv] [--verdicts OUT.json] [--list] [--offset D1,D2,…] [--lang]
// Without --config: the shipped gate. With it: a model trained in-process with CFG = { extra: [[file, 'all'|'attacks'|'nonquoting']],
// options: {...TrainOptions} } on top of the shipped training rows, calibrated the shipped way.
// Without --config the shipped gate includes its second model (gate24, poisonGateSecond.ts); a --config model is scored alone.
// --offset (gate21; gate20's sweep): the model (and the --cv models) trained once, every figure printed once per offset d of the
// `untrusted` threshold (a logit; d < 0 is a smaller calibration margin; reject stays ≥ untrusted), one JSON line each.
// --lang: hijacking/extraction flagged and benign flagged per language (de/en/es/fr/hu) over OTHER = gate8 dev + gate17 dev
// + gate18 dev + gate18/gate19 training material (other writers' text no shipped model trains on; docs/gate20-rule.md).
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const T = require(join(root, 'out', 'src', 'engine', 'write', 'poisonGateTrain.js'));
const G = require(join(root, 'out', 'src', 'engine', 'write', 'poisonGate.js'));
const arg = (k) => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : undefined; };
const has = (k) => process.argv.includes(k);
const bench = (f) => T.benchDataFile(f, root);
const deepsetFile = bench(T.DEEPSET_TRAIN_FILE);
const locomoFile = bench(T.LOCOMO_FILE);
const cal = T.calibrationTexts(locomoFile, root);
const cfg = arg('--config') ? JSON.parse(readFileSync(arg('--config'), 'utf8')) : null;

function extraRows(cfg) {
  const out = [];
  for (const [file, mode] of cfg.extra ?? []) {
    for (const v of T.readJsonl(join(root, file))) {
      const r = T.toRow(v, file);
      if (mode === 'attacks' && !r.attack) continue;
      if (mode === 'nonquoting' && !T.trainsOn(file, v)) continue;
      out.push(r);
    }
  }
  return out;
}

const opts = { ...T.SHIPPED_OPTIONS, ...(cfg?.options ?? {}) };
const offsets = arg('--offset') ? arg('--offset').split(',').map(Number) : [0];
const shift = (m, d) => (d ? { ...m, untrustedAt: m.untrustedAt + d, rejectAt: Math.max(m.rejectAt, m.untrustedAt + d) } : m);
const t0 = Date.now();
const own = () => [...T.ownTrainRows(root), ...(cfg ? extraRows(cfg) : [])];
let model = null;
if (cfg) {
  ({ model } = T.trainGateModel([...own(), ...T.deepsetRows(deepsetFile)], { ...opts, calibrationTexts: cal }));
  console.error(`trained in ${Date.now() - t0} ms; untrusted ${model.untrustedAt.toFixed(3)} reject ${model.rejectAt.toFixed(3)}`);
} else if (offsets.some((d) => d !== 0)) {
  const W = require(join(root, 'out', 'src', 'engine', 'write', 'poisonGateWeights.js')), H = require(join(root, 'out', 'src', 'engine', 'write', 'poisonGateHiddenWeights.js'));
  model = G.gateFromWeights(W.GATE_WEIGHTS_B64, H.GATE_HIDDEN_B64).model;
}
const cvModels = [];
const ds = has('--cv') ? T.deepsetRows(deepsetFile) : [];
if (has('--cv')) {
  const o = own();
  for (let f = 0; f < 5; f++) cvModels.push(T.trainGateModel([...o, ...ds.filter((_, i) => T.foldOf(i, 5) !== f)], { ...opts, calibrationTexts: cal }).model);
}
const flagged = (r) => r.verdict !== 'pass';
const HE = new Set(['hijack', 'extraction']);
const OTHER = new Set(['gate8Dev', 'gate17Dev', 'gate18Dev', 'gate18Train', 'gate19Train']);
const rowsOf = new Map(); // each file read once, whatever the number of offsets
let gateFn, res, verdicts, langs;
for (const d of offsets) {
  gateFn = model ? G.createGate(shift(model, d)) : G.gate;
  res = offsets.length > 1 ? { offset: d } : {};
  verdicts = {};
  langs = {};
  run(d);
}
function score(name, file) {
  if (!rowsOf.has(file)) rowsOf.set(file, T.readJsonl(join(root, file)).map((v) => ({ ...T.toRow(v, file), style: v.style })));
  const rows = rowsOf.get(file);
  const vs = rows.map((r) => gateFn(r.text));
  if (OTHER.has(name)) rows.forEach((r, i) => {
    const l = (langs[r.lang ?? '?'] ??= { he: 0, heN: 0, ben: 0, benN: 0 });
    if (r.attack && HE.has(r.family ?? '')) { l.heN++; if (flagged(vs[i])) l.he++; } else if (!r.attack) { l.benN++; if (flagged(vs[i])) l.ben++; }
  });
  verdicts[name] = vs.map((v) => v.verdict[0]).join('');
  const a = rows.filter((r) => r.attack), b = rows.filter((r) => !r.attack);
  const o = {};
  if (a.length) o.att = `${rows.filter((r, i) => r.attack && flagged(vs[i])).length}/${a.length}`;
  const he = rows.filter((r) => r.attack && HE.has(r.family ?? ''));
  if (he.length && name !== 'attackDev') o.he = `${rows.filter((r, i) => r.attack && HE.has(r.family ?? '') && flagged(vs[i])).length}/${he.length}`;
  if (b.length) o.ben = `${rows.filter((r, i) => !r.attack && flagged(vs[i])).length}/${b.length}`, o.rej = rows.filter((r, i) => !r.attack && vs[i].verdict === 'reject').length;
  res[name] = o;
  if (has('--list')) rows.forEach((r, i) => { if (flagged(vs[i]) !== r.attack) console.log(`${name}\t${r.attack ? 'MISS' : 'FP:' + vs[i].verdict + ':' + vs[i].detector}\t${r.lang}\t${r.family}\t${r.text.slice(0, 150).replace(/\s+/g, ' ')}`); });
}
function run(d) {
  score('v9', T.AUTHORS_DEV_FILE);
  score('benignDev', T.BENIGN_DEV_FILE);
  score('ordinaryDev', T.ORDINARY_DEV_FILE);
  score('hardDev', T.HARD_DEV_FILE);
  score('adviceDev', T.ADVICE_DEV_FILE);
  score('hardBenignDev', T.HARDBENIGN_DEV_FILE);
  score('hbsecretsDev', T.HBSECRETS_DEV_FILE);
  score('hardQuoting', T.HARD_QUOTING_FILE);
  score('attackDev', T.ATTACK_DEV_FILE);
  score('gate8Dev', 'test/fixtures/gate-dev-gate8.jsonl');
  score('gate16Dev', 'test/fixtures/gate16-dev.jsonl');
  score('gate16Train', 'test/fixtures/gate-train-gate16.jsonl');
  score('gate17Dev', 'test/fixtures/gate17-dev.jsonl');
  score('gate18Dev', 'test/fixtures/gate18-dev.jsonl');
  if (existsSync(join(root, 'test/fixtures/gate-train-gate18.jsonl'))) score('gate18Train', 'test/fixtures/gate-train-gate18.jsonl');
  if (existsSync(join(root, 'test/fixtures/gate-train-gate19.jsonl'))) score('gate19Train', 'test/fixtures/gate-train-gate19.jsonl');
  if (existsSync(join(root, 'test/fixtures/gate20-guard.jsonl'))) score('gate20Guard', 'test/fixtures/gate20-guard.jsonl');
  if (existsSync(join(root, 'test/fixtures/gate21-guard.jsonl'))) score('gate21Guard', 'test/fixtures/gate21-guard.jsonl');
  if (has('--authors')) score('authorsTrain', T.AUTHORS_TRAIN_FILE);
  if (existsSync(join(root, 'test/fixtures/gate-train-gate17.jsonl'))) score('gate17Train', 'test/fixtures/gate-train-gate17.jsonl');
  const lv = cal.dialogue.map((t) => gateFn(t));
  verdicts.locomo = lv.map((v) => v.verdict[0]).join('');
  res.locomo = `${lv.filter(flagged).length}/${lv.length}`;
  if (has('--cv')) {
    let tp = 0, n = 0, fp = 0;
    cvModels.forEach((m, f) => {
      const g = G.createGate(shift(m, d));
      ds.forEach((r, i) => { if (T.foldOf(i, 5) !== f) return; const fl = g(r.text).verdict !== 'pass'; if (r.attack) { n++; if (fl) tp++; } else if (fl) fp++; });
    });
    res.deepsetCV = { recall: +(tp / n).toFixed(3), tp, n, fp };
  }
  if (has('--lang')) res.otherByLang = Object.fromEntries(Object.entries(langs).sort().map(([k, l]) => [k, `h+e ${l.he}/${l.heN}, ben ${l.ben}/${l.benN}`]));
  console.log(JSON.stringify(res));
  if (arg('--verdicts')) writeFileSync(offsets.length > 1 ? `${arg('--verdicts')}.${d}` : arg('--verdicts'), JSON.stringify(verdicts));
}
console.error(`total ${Date.now() - t0} ms`);
