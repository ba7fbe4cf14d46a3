// Entry point of the benchmarks, bundled on its own into dist/bench.js (never shipped in the .vsix:
// it carries lunr and the LoCoMo harness). `npm run bench -- NAME` runs it directly; a source
// checkout's `vscode-memory bench NAME` loads it from beside dist/cli.js.
import { errorDocument, exitCodeFor, parseCommandArgs } from '../../src/cliArgs';
import { MemoryError } from '../../src/engine/errors';
import { BENCHMARKS } from './index';
import { BENCH_OPTIONS, BENCH_USAGE } from '../../src/cli/commands/bench';

/** Runs the named benchmarks (the default set when none is named); one JSON-able result. */
export async function runBenchmarks(names: string[], args: Record<string, string | boolean>, log: (line: string) => void): Promise<unknown> {
  const chosen = names.length ? names : Object.keys(BENCHMARKS).filter((n) => BENCHMARKS[n]!.default);
  const unknown = chosen.filter((n) => !BENCHMARKS[n]);
  if (unknown.length) throw new MemoryError('E_USAGE', `unknown benchmark: ${unknown.join(', ')} (known: ${Object.keys(BENCHMARKS).join(', ')})`);
  const out: Record<string, unknown> = {};
  for (const n of chosen) {
    log(`${n} …`);
    out[n] = await BENCHMARKS[n]!.run({ args, log });
  }
  return chosen.length === 1 ? out[chosen[0]!] : out;
}

export const BENCHMARK_NAMES = Object.keys(BENCHMARKS);

/** `node dist/bench.js` + BENCH_USAGE's options: one JSON document on stdout. */
export async function benchMain(argv: string[]): Promise<number> {
  try {
    const p = parseCommandArgs(argv, { ...BENCH_OPTIONS, help: { type: 'boolean' } });
    if (p.values.help) {
      process.stdout.write(`usage: npm run bench -- ${BENCH_USAGE.replace(/^bench /, '')}\nbenchmarks: ${BENCHMARK_NAMES.join(', ')}\n`);
      return 0;
    }
    const args: Record<string, string | boolean> = {};
    for (const [k, v] of Object.entries(p.values)) if (typeof v === 'string' || typeof v === 'boolean') args[k] = v;
    const result = await runBenchmarks(p.positionals, args, (l) => process.stderr.write(`[bench] ${l}\n`));
    process.stdout.write(JSON.stringify(result) + '\n');
    return 0;
  } catch (e) {
    process.stdout.write(JSON.stringify(errorDocument(e)) + '\n');
    return exitCodeFor(e);
  }
}

if (require.main === module) void benchMain(process.argv.slice(2)).then((code) => { process.exitCode = code; });
