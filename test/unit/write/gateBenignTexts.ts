import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { benchDataFile, calibrationTexts, DEEPSET_TRAIN_FILE, LOCOMO_FILE, OWN_HELDOUT_FILE, readJsonl } from '../../../src/engine/write/poisonGateTrain';

/**
 * Every benign text a gate signal may be checked against without touching the held-out part: the benign rows of all
 * other fixtures (`fixtures`), and those plus LoCoMo's dialogue turns and the deepset train split's benign texts when
 * the bench data is present (`all`).
 */
export function benignTexts(root: string): { fixtures: string[]; all: string[] } {
  const fx = join(root, 'test/fixtures');
  const fixtures: string[] = [];
  for (const f of readdirSync(fx)) {
    if (!f.endsWith('.jsonl') || join('test/fixtures', f) === OWN_HELDOUT_FILE) continue;
    for (const v of readJsonl(join(fx, f))) if (v.label === 'benign' || v.label === 'pass') fixtures.push(String(v.text));
  }
  const all = [...fixtures];
  const locomo = benchDataFile(LOCOMO_FILE, root), deepset = benchDataFile(DEEPSET_TRAIN_FILE, root);
  if (locomo) all.push(...calibrationTexts(locomo, root).dialogue);
  if (deepset) all.push(...readJsonl(deepset).filter((v) => v.label === 'benign').map((v) => String(v.text)));
  return { fixtures, all };
}
