// `npm run train:gate`: retrains the poison gate's learned stage from the fixed training data (own corpora
// in test/fixtures + the deepset train split in ../shared/bench-data, or --deepset FILE) with the fixed seed,
// and writes src/engine/write/poisonGateWeights.ts and poisonGateHiddenWeights.ts (the hidden layer, gate9). Deterministic: a second run writes the same bytes
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
const { module, info, bytes, hiddenModule, hiddenBytes } = T.trainShipped(deepset, root);
const out = join(root, 'src', 'engine', 'write', 'poisonGateWeights.ts');
const hiddenOut = join(root, 'src', 'engine', 'write', 'poisonGateHiddenWeights.ts');
writeFileSync(out, module);
writeFileSync(hiddenOut, hiddenModule);
console.log(JSON.stringify({
  wrote: [out, hiddenOut], bytes: bytes.length, sha256: T.sha256(bytes),
  hiddenBytes: hiddenBytes ? hiddenBytes.length : 0, hiddenSha256: hiddenBytes ? T.sha256(hiddenBytes) : null, ms: Date.now() - t0, ...info,
}, null, 2));
