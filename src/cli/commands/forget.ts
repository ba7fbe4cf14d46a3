// `vscode-memory forget`.
import { type Command, one } from '../command';

export const forgetCommand: Command = {
  name: 'forget',
  summary: 'deletes one memory (and rows derived only from it)',
  usage: 'forget ID',
  options: {},
  run: async (p, c) => (await c.engine()).forget(one(p, 'id'), 'cli'),
};
