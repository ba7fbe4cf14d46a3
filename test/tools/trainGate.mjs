// `npm run train:gate`: retrains the poison gate's learned stage from the fixed training data (own corpora
// in test/fixtures + the deepset train split in ../shared/bench-data, or --deepset FILE) with the fixed seed,
// and writes src/engine/write/poisonGateWeights.ts and poisonGateHiddenWeights.ts (the hidden layer, gate9), then the second
// model (gate24, poisonGateSecond.ts) calibrated against the first: poisonGateSecondWeights.ts and poisonGateSecondHiddenWeights.ts.
// Deterministic: a second run writes the same bytes
// (test/unit/write/poisonGateModel.test.ts checks that, and the shipped table's hash).
// Run after `node build.mjs` (the npm script does both); rebuild afterwards to bundle the new weights.
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const T = require(join(root, 'out', 'src', 'engine', 'write', 'poisonGateTrain.js'));

const i = process.argv.indexOf('--deepset');
const deepset = i > 0 ? process.argv[i + 1] : T.benchDataFile(T.DEEPSET_TRAIN_FILE, root);
if (!deepset) {
  console.error(`train:gate: ${T.DEEPSET_TRAIN_FILE} not found in ../shared/bench-data; pass --deepset FILE`);
  process.exit(2);
}
const t0 = Date.now();
const S = require(join(root, 'out', 'src', 'engine', 'write', 'poisonGateSecond.js'));
const M = require(join(root, 'out', 'src', 'engine', 'write', 'poisonGateModel.js'));
const dir = join(root, 'src', 'engine', 'write');
const { module, info, bytes, hiddenModule, hiddenBytes } = T.trainShipped(deepset, root);
// The second model (gate24) is calibrated against the first as just trained.
const first = M.withHiddenLayer(M.loadGateModel(bytes), hiddenBytes);
const second = S.trainSecondShipped(deepset, first, root);
const files = [['poisonGateWeights.ts', module], ['poisonGateHiddenWeights.ts', hiddenModule], ['poisonGateSecondWeights.ts', second.module], ['poisonGateSecondHiddenWeights.ts', second.hiddenModule]];
for (const [f, text] of files) writeFileSync(join(dir, f), text);
const about = (b, h, i) => ({ bytes: b.length, sha256: T.sha256(b), hiddenBytes: h ? h.length : 0, hiddenSha256: h ? T.sha256(h) : null, ...i });
console.log(JSON.stringify({
  wrote: files.map(([f]) => join(dir, f)), ms: Date.now() - t0, first: about(bytes, hiddenBytes, info), second: about(second.bytes, second.hiddenBytes, second.info),
}, null, 2));
