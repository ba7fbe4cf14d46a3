// `vscode-memory status`.
import type { Command } from '../command';

export const statusCommand: Command = {
  name: 'status',
  summary: 'engine figures (embedder, counts, vectors, switches, health)',
  usage: 'status',
  options: {},
  run: async (_p, c) => {
    const engine = await c.engine();
    // The project vault (issue #15): where it is, its note counts and agent files; null when none was found or it is off.
    return { ...engine.status(), projectVault: engine.project.info() ?? null };
  },
};
