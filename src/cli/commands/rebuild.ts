// `vscode-memory rebuild`.
import type { Command } from '../command';

export const rebuildCommand: Command = {
  name: 'rebuild',
  summary: 'rebuilds every vault-derived row from the files',
  usage: 'rebuild',
  options: {},
  run: async (_p, c) => (await c.engine()).rebuild(),
};
