// `vscode-memory recall`.
import { intOpt } from '../../cliArgs';
import { type Command, READ_OPTS, readCtx } from '../command';

export const recallCommand: Command = {
  name: 'recall',
  summary: 'the recall block exactly as it would be prepended',
  usage: 'recall MESSAGE [--project ID] [--conversation ID] [--window TOKENS] [--no-tools]',
  options: { ...READ_OPTS, window: { type: 'string' }, 'no-tools': { type: 'boolean' } },
  run: async (p, c) => {
    const message = p.positionals.join(' ');
    const engine = await c.engine();
    // A conversation id never seen before is a new conversation in the given project (a script's first turn).
    const ctx = readCtx(p, c);
    const r = await engine.recall({ ...ctx, message, window: intOpt(p.values.window, 'window', 1, 100_000_000), canUseTools: p.values['no-tools'] !== true });
    return { block: r.block, items: r.items, ...(r.reason ? { reason: r.reason } : {}) };
  },
  format: (v) => {
    const o = v as { block: string; reason?: string };
    return o.block || `(empty recall block${o.reason ? `: ${o.reason}` : ''})`;
  },
};
