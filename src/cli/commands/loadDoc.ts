// `vscode-memory load-doc`.
import * as path from 'node:path';
import { stringOpt } from '../../cliArgs';
import { type Command, one } from '../command';

export const loadDocCommand: Command = {
  name: 'load-doc',
  summary: 'loads a Markdown document as pinned sections, idempotently (R-WRITE-8)',
  usage: 'load-doc FILE [--project ID] [--title T]',
  options: { project: { type: 'string' }, title: { type: 'string' } },
  run: async (p, c) => {
    const r = await (await c.engine()).loadDocument({ path: path.resolve(one(p, 'file')), project: stringOpt(p.values.project), title: stringOpt(p.values.title) });
    return r;
  },
};
