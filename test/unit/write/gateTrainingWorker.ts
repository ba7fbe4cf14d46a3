// Worker thread of gateTraining.ts: runs `npm run train:gate`'s two trainings (the first model with its hidden layer,
// then the second model calibrated against the shipped first) and posts each result as soon as it is ready.
import { parentPort } from 'node:worker_threads';
import { gateFromWeights } from '../../../src/engine/write/poisonGate';
import { benchDataFile, DEEPSET_TRAIN_FILE, repoRoot, trainShipped } from '../../../src/engine/write/poisonGateTrain';
import { trainSecondShipped } from '../../../src/engine/write/poisonGateSecond';
import { GATE_WEIGHTS_B64 } from '../../../src/engine/write/poisonGateWeights';
import { GATE_HIDDEN_B64 } from '../../../src/engine/write/poisonGateHiddenWeights';

const port = parentPort!;
const root = repoRoot(__dirname);
const deepset = benchDataFile(DEEPSET_TRAIN_FILE, root);
try {
  if (!deepset) {
    port.postMessage({ kind: 'first', value: null });
    port.postMessage({ kind: 'second', value: null });
  } else {
    port.postMessage({ kind: 'first', value: trainShipped(deepset, root) });
    const first = gateFromWeights(GATE_WEIGHTS_B64, GATE_HIDDEN_B64).model!;
    port.postMessage({ kind: 'second', value: trainSecondShipped(deepset, first, root) });
  }
} catch (e) {
  port.postMessage({ kind: 'error', value: e instanceof Error ? e.stack ?? e.message : String(e) });
}
