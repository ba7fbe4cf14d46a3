// `vscode-memory expand`.
import { type Command, READ_OPTS, one, readCtx } from '../command';

export const expandCommand: Command = {
  name: 'expand',
  summary: 'opens one memory by id',
  usage: 'expand ID [--project ID] [--conversation ID]',
  options: READ_OPTS,
  run: async (p, c) => (await c.engine()).expand(one(p, 'id'), readCtx(p, c)),
};
