// `vscode-memory status`.
import type { Command } from '../command';

export const statusCommand: Command = {
  name: 'status',
  summary: 'engine figures (embedder, counts, vectors, switches, health)',
  usage: 'status',
  options: {},
  run: async (_p, c) => (await c.engine()).status(),
};
