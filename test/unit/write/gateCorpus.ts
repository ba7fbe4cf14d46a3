// Shared checks of the gate's hand-written benign corpora (gateAdvice.test.ts, gateHardBenign.test.ts): the row
// format, and that a corpus shares no text with the others (so a dev third never leaks into training or held-out).
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonl } from '../../../src/engine/write/poisonGateTrain';

export const LANGS = ['en', 'de', 'hu', 'es', 'fr'];
type Row = Record<string, unknown>;

const textKey = (v: Row) => String(v.text).trim().toLowerCase();

/** Every row of each file is a benign row written by `source` in one of the five languages; each file ends in a newline. */
export function assertBenignRows(root: string, files: ReadonlyArray<readonly [string, Row[]]>, source: string): void {
  for (const [file, rows] of files) {
    assert.ok(readFileSync(join(root, file), 'utf8').endsWith('\n'), file);
    const bad = rows.filter((v) => typeof v.text !== 'string' || !v.text.trim() || v.label !== 'benign'
      || !LANGS.includes(String(v.lang)) || typeof v.family !== 'string' || v.source !== source);
    assert.equal(bad.length, 0, `${file}: ${bad.length} malformed rows`);
  }
}

/** No text of `rows` twice (`label` names the corpus), and none that a row of `others` (files) has too. */
export function assertOwnTexts(root: string, rows: Row[], others: readonly string[], label: string): void {
  const seen = new Set(others.flatMap((f) => readJsonl(join(root, f)).map(textKey)));
  const ours = rows.map(textKey);
  assert.equal(new Set(ours).size, ours.length, `duplicate inside ${label}`);
  assert.deepEqual(ours.filter((k) => seen.has(k)), []);
}
