// `vscode-memory bench`.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { MemoryError } from '../../engine/errors';
import type { Command, CommandContext } from '../command';

/** The benchmarks' options, the same through `vscode-memory bench` and `node dist/bench.js`. */
export const BENCH_OPTIONS = {
  data: { type: 'string' }, deepset: { type: 'string' }, items: { type: 'string' }, store: { type: 'string' }, tmp: { type: 'string' },
  quick: { type: 'boolean' }, confusion: { type: 'boolean' },
} as const;
export const BENCH_USAGE = 'bench [NAME …] [--items N] [--store DIR] [--tmp DIR] [--data FILE] [--deepset FILE] [--confusion] [--quick]';

export const benchCommand: Command = {
  name: 'bench',
  summary: 'benchmarks (JSON), in a source checkout (dist/bench.js; not part of the installed CLI)',
  usage: BENCH_USAGE,
  options: BENCH_OPTIONS,
  standalone: true,
  run: async (p, c) => {
    const bench = loadBenchmarks(c);
    const args: Record<string, string | boolean> = {};
    for (const [k, v] of Object.entries(p.values)) if (typeof v === 'string' || typeof v === 'boolean') args[k] = v;
    return bench.runBenchmarks(p.positionals, args, (l) => c.io.err(`[bench] ${l}`));
  },
};

/** The benchmarks bundle (dist/bench.js, built beside dist/cli.js in a checkout; never shipped). */
interface BenchmarksModule {
  runBenchmarks(names: string[], args: Record<string, string | boolean>, log: (line: string) => void): Promise<unknown>;
}
function loadBenchmarks(c: CommandContext): BenchmarksModule {
  const file = path.join(c.binDir, 'bench.js');
  if (!existsSync(file)) {
    throw new MemoryError('E_USAGE', 'benchmarks are not part of the installed CLI: run `npm run bench -- NAME` in a source checkout');
  }
  // A runtime path on purpose: the bundler must not pull the benchmarks (and lunr) into cli.js.
  return c.loadModule(file) as BenchmarksModule;
}
