// A child process for the store's multi-process and crash tests (forked by the tests; not a test).
// argv[2] is JSON: { dir, mode: 'writer' | 'crash', prefix, count?, expect?, compactBytes? }.
// It reports over IPC: {type:'ready'}, {type:'ack', id} after each acknowledged save, {type:'compacting'}
// while a compaction runs, {type:'seen', n}.
import { Store } from '../../../src/engine/store/store';

interface Args {
  dir: string;
  mode: 'writer' | 'crash';
  prefix: string;
  count?: number;
  expect?: number;
  compactBytes?: number;
}

const send = (m: object) => new Promise<void>((r) => process.send!(m, () => r()));

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2]) as Args;
  const store = await Store.open({ dir: args.dir, compactBytes: args.compactBytes, pollMs: 50 });
  await send({ type: 'ready', seq: store.seq });
  const text = 'x'.repeat(200);
  if (args.mode === 'crash') {
    // Runs until killed: saves in small concurrent groups (group commit) and compacts often. Every third save
    // defers its fsync (a bulk derivation's kind, journalSync.ts) and counts as acknowledged after `sync()`.
    for (let i = 0; ; i++) {
      const ids = [0, 1, 2].map((k) => `fa:${args.prefix}-${i}-${k}`);
      await Promise.all(ids.map(async (id, k) => {
        await store.transaction((tx) => tx.items.put({ id, created: i, text, conversation: args.prefix }), { defer: k === 2 });
        if (k === 2) await store.sync();
        process.send!({ type: 'ack', id });
      }));
      if (i % 7 === 0) {
        const compaction = store.compact();
        process.send!({ type: 'compacting' });
        await compaction;
      }
    }
  }
  const count = args.count ?? 1000;
  for (let i = 0; i < count; i += 10) {
    await Promise.all(Array.from({ length: Math.min(10, count - i) }, (_, k) => {
      const id = `fa:${args.prefix}-${i + k}`;
      return store.transaction((tx) => tx.items.put({ id, created: i + k, text, conversation: args.prefix }));
    }));
  }
  // Wait for the other writer's items to show up (the test's convergence check).
  const expect = args.expect ?? count;
  while (store.items.count({ kind: 'fact' }) < expect) {
    await new Promise((r) => setTimeout(r, 20));
    store.refresh();
  }
  await send({ type: 'seen', n: store.items.count({ kind: 'fact' }) });
  await store.close();
  process.exit(0);
}

main().catch(async (e) => {
  process.stderr.write(`storeChild: ${(e as { code?: string }).code ?? ''} ${(e as Error)?.stack ?? e}\n`);
  await send({ type: 'error', code: (e as { code?: string }).code ?? String(e) });
  process.exit(1);
});
