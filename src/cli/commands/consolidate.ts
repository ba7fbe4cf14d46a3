// `vscode-memory consolidate`.
import { backgroundModelOption, BACKGROUND_MODEL_OPTS, type Command } from '../command';

export const consolidateCommand: Command = {
  name: 'consolidate',
  summary: 'promotes recurring memory to notes, archives low-salience items and expired working blocks (R-MAINT-1)',
  usage: 'consolidate [--base-url URL --model M]',
  options: BACKGROUND_MODEL_OPTS,
  // Without a model nothing is promoted (skippedNoModel).
  run: async (p, c) => {
    const model = backgroundModelOption(p, 'consolidate');
    return (await c.engine()).consolidate({ model });
  },
};
