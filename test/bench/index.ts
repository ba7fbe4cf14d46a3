// The named benchmarks `vscode-memory bench NAME` / `npm run bench -- NAME` can run.
// Each returns a JSON-able object; `default` ones run when no name is given.
import type { BenchFn } from './harness';

export interface BenchEntry {
  run: BenchFn;
  default: boolean;
  summary: string;
}

export const BENCHMARKS: Record<string, BenchEntry> = {
  harness: {
    summary: 'self-check of the harness: a tight loop against a baseline run in the same process',
    default: false,
    run: async () => {
      const { compare } = await import('./harness');
      const data = Array.from({ length: 10_000 }, (_, i) => i);
      return compare(() => data.reduce((a, b) => a + b, 0), () => { let s = 0; for (const x of data) s += x; return s; }, { runs: 30 });
    },
  },
};
