// A child process that writes to a store from outside the test's process (forked by the tests; not a test).
// argv[2] is JSON: { dir, ops: [repo, method, ...args][], stay? }. Each op is its own acknowledged transaction;
// then it reports {type:'done', seq} and exits after a clean close — or, with `stay`, waits to be killed
// (SIGKILL: nothing beyond the journal's acknowledged records survives; no close, no compaction).
import { Store } from '../../../src/engine/store/store';

interface Args {
  dir: string;
  ops: [string, string, ...unknown[]][];
  stay?: boolean;
}

const send = (m: object) => new Promise<void>((r) => process.send!(m, () => r()));

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2]) as Args;
  const store = await Store.open({ dir: args.dir, pollMs: 50, watch: false });
  for (const [repo, method, ...params] of args.ops) {
    await store.transaction((tx) => {
      const r = (tx as unknown as Record<string, Record<string, (...a: unknown[]) => unknown>>)[repo]!;
      r[method]!.apply(r, params);
    });
  }
  await send({ type: 'done', seq: store.seq });
  if (args.stay) {
    setInterval(() => undefined, 60_000);
    return;
  }
  await store.close();
  process.exit(0);
}

main().catch(async (e) => {
  process.stderr.write(`opsChild: ${(e as { code?: string }).code ?? ''} ${(e as Error)?.stack ?? e}\n`);
  await send({ type: 'error', code: (e as { code?: string }).code ?? String(e) });
  process.exit(1);
});
