// `vscode-memory flush`.
import { stringOpt } from '../../cliArgs';
import type { Command } from '../command';

export const flushCommand: Command = {
  name: 'flush',
  summary: 'flushes raw-record buffers so derivation runs now',
  usage: 'flush [--conversation ID]',
  options: { conversation: { type: 'string' } },
  run: async (p, c) => ({ flushed: await (await c.engine()).flush(stringOpt(p.values.conversation)) }),
};
