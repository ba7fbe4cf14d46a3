// gate20's sweep: one configuration trained once (plus the five deepset CV models), scored at several offsets of the
// calibrated `untrusted` threshold (d < 0 is a smaller calibration margin) on the dev sets only (never gate-heldout.jsonl).
// Usage after `node build.mjs`: node test/tools/gateSweep.mjs CFG.json [d1,d2,…]   (CFG = { name, options: {...TrainOptions} })
// Models are cached under $GATE_SWEEP_CACHE (default gate-sweep-cache in the OS temp folder) by name + options: clear it after changing the features. OTHER = gate8 dev + gate17 dev +
// gate18 dev + gate18/gate19 training material (other writers' text no shipped model trains on): docs/gate20-rule.md.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const T = require(join(root, 'out/src/engine/write/poisonGateTrain.js'));
const G = require(join(root, 'out/src/engine/write/poisonGate.js'));
const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const deltas = (process.argv[3] ?? '0,-0.1,-0.2,-0.3').split(',').map(Number);
const cal = T.calibrationTexts(T.benchDataFile(T.LOCOMO_FILE, root), root);
const opts = { ...T.SHIPPED_OPTIONS, ...(cfg.options ?? {}), calibrationTexts: cal };
const ds = T.deepsetRows(T.benchDataFile(T.DEEPSET_TRAIN_FILE, root));
const own = T.ownTrainRows(root);
const t0 = Date.now();
const shift = (m, d) => ({ ...m, untrustedAt: m.untrustedAt + d, rejectAt: Math.max(m.rejectAt, m.untrustedAt + d) });
const M0 = require(join(root, 'out/src/engine/write/poisonGateModel.js'));
const { existsSync, writeFileSync, mkdirSync } = await import('node:fs');
const cacheDir = process.env.GATE_SWEEP_CACHE ?? join((await import('node:os')).tmpdir(), 'gate-sweep-cache');
mkdirSync(cacheDir, { recursive: true });
const key = (cfg.name ?? 'x') + '-' + JSON.stringify(cfg.options ?? {}).replace(/[^a-z0-9]/gi, '_');
function trained(rowsIn, tag) {
  const f = `${cacheDir}/${key}-${tag}`;
  if (existsSync(f + '.w')) { const h = readFileSync(f + '.h'); return M0.withHiddenLayer(M0.loadGateModel(readFileSync(f + '.w')), h.length ? h : null); }
  const r = T.trainGateModel(rowsIn, opts);
  writeFileSync(f + '.w', r.bytes); writeFileSync(f + '.h', r.hiddenBytes ?? new Uint8Array(0));
  return r.model;
}
const model = trained([...own, ...ds], 'full');
console.error(`untrusted ${model.untrustedAt.toFixed(3)} reject ${model.rejectAt.toFixed(3)}`);
const cvModels = [];
for (let f = 0; f < 5; f++) cvModels.push(trained([...own, ...ds.filter((_, i) => T.foldOf(i, 5) !== f)], 'cv' + f));
const files = { v9: T.AUTHORS_DEV_FILE, benignDev: T.BENIGN_DEV_FILE, ordinary: T.ORDINARY_DEV_FILE, hard: T.HARD_DEV_FILE, advice: T.ADVICE_DEV_FILE,
  hardbenign: T.HARDBENIGN_DEV_FILE, hbsecrets: T.HBSECRETS_DEV_FILE, hardQuoting: T.HARD_QUOTING_FILE, attackDev: T.ATTACK_DEV_FILE,
  gate8: 'test/fixtures/gate-dev-gate8.jsonl', gate16: 'test/fixtures/gate16-dev.jsonl', gate17: 'test/fixtures/gate17-dev.jsonl', gate18: 'test/fixtures/gate18-dev.jsonl',
  g18T: 'test/fixtures/gate-train-gate18.jsonl', g19T: 'test/fixtures/gate-train-gate19.jsonl', guard: 'test/fixtures/gate20-guard.jsonl' };
const rows = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, T.readJsonl(join(root, f)).map((v) => T.toRow(v, f))]));
const HE = new Set(['hijack', 'extraction']);
const OTHER = ['gate8', 'gate17', 'gate18', 'g18T', 'g19T'];
for (const d of deltas) {
  const g = G.createGate(shift(model, d));
  const o = {};
  for (const [k, rs] of Object.entries(rows)) {
    const v = rs.map((r) => g(r.text).verdict);
    const a = rs.filter((r, i) => r.attack && v[i] !== 'pass').length, na = rs.filter((r) => r.attack).length;
    const he = rs.filter((r, i) => r.attack && HE.has(r.family ?? '') && v[i] !== 'pass').length;
    const b = rs.filter((r, i) => !r.attack && v[i] !== 'pass').length, rj = rs.filter((r, i) => !r.attack && v[i] === 'reject').length;
    o[k] = { a, na, he, b, rj };
  }
  const loc = cal.dialogue.filter((t) => g(t).verdict !== 'pass').length;
  let tp = 0, n = 0;
  cvModels.forEach((m, f) => { const gf = G.createGate(shift(m, d)); ds.forEach((r, i) => { if (T.foldOf(i, 5) !== f || !r.attack) return; n++; if (gf(r.text).verdict !== 'pass') tp++; }); });
  const oh = OTHER.reduce((s, k) => s + o[k].he, 0), ob = OTHER.reduce((s, k) => s + o[k].b, 0);
  const benAll = ['v9', 'benignDev', 'ordinary', 'hard', 'advice', 'hardbenign', 'hbsecrets', 'hardQuoting', 'gate16', 'guard', ...OTHER].reduce((s, k) => s + o[k].b, 0);
  console.log(`${cfg.name ?? ''} d=${d} CV ${(tp / n).toFixed(3)} loc ${loc} | v9 ${o.v9.a} he${o.v9.he} b${o.v9.b} r${o.v9.rj} | bdev ${o.benignDev.b}r${o.benignDev.rj} ord ${o.ordinary.b}r${o.ordinary.rj} hard ${o.hard.b} adv ${o.advice.b} hb ${o.hardbenign.b} hbs ${o.hbsecrets.b} hq ${o.hardQuoting.b} | attdev ${o.attackDev.a} g16 ${o.gate16.a} | g8 he${o.gate8.he} a${o.gate8.a} b${o.gate8.b} | g17 he${o.gate17.he} b${o.gate17.b} g18 he${o.gate18.he} b${o.gate18.b} g18T he${o.g18T.he} b${o.g18T.b} g19T he${o.g19T.he} b${o.g19T.b} | OTHER he ${oh} b ${ob} | guard ${o.guard.a} b${o.guard.b}r${o.guard.rj} | benAll ${benAll}`);
}
console.error(`ms ${Date.now() - t0}`);
