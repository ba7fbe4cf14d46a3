// One log-event naming style (issue #11): dot-separated snake_case segments, e.g. `store.compact_failed`.
// Checks every literal event name passed to a logger's trace/info/warn/error in src/.
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const CALL = /\.(?:trace|info|warn|error)\(\s*'([^']+)'/g;
const STYLE = /^[a-z0-9_]+(?:\.[a-z0-9_]+)*$/;

/** Event names in `text` that break the style. */
export function badEventNames(text: string): string[] {
  const out: string[] = [];
  for (let m = CALL.exec(text); m; m = CALL.exec(text)) if (!STYLE.test(m[1]!)) out.push(m[1]!);
  CALL.lastIndex = 0;
  return out;
}

function findRoot(dir: string): string {
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'src'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('project root not found');
    dir = up;
  }
  return dir;
}

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

describe('Log event names', () => {
  it('flags camelCase, dashes and capitals, and passes snake_case segments (also across a line break)', () => {
    const text = "logger.warn('store.compactFailed', {});\nthis.logger.info(\n  'vault.watch-synced');\nlog.error('Engine.open');\n"
      + "logger.trace('store.compact_failed', {}); logger.info('engine.index_ready'); console.info('x');";
    assert.deepEqual(badEventNames(text), ['store.compactFailed', 'vault.watch-synced', 'Engine.open']);
  });

  it('every event name in src/ is dot-separated snake_case', () => {
    const root = findRoot(__dirname);
    const bad = sources(join(root, 'src')).flatMap((f) => badEventNames(readFileSync(f, 'utf8')).map((e) => `${relative(root, f)}: ${e}`));
    assert.deepEqual(bad, []);
  });
});
