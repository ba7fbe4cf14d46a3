// `vscode-memory reflect`.
import { backgroundModelOption, BACKGROUND_MODEL_OPTS, type Command } from '../command';

export const reflectCommand: Command = {
  name: 'reflect',
  summary: 'writes the morning briefing about yesterday to reflections/<today>.md (R-MAINT-5)',
  usage: 'reflect [--base-url URL --model M]',
  options: BACKGROUND_MODEL_OPTS,
  // Without a model only the deterministic part is written.
  run: async (p, c) => {
    const model = backgroundModelOption(p, 'reflect');
    const r = await (await c.engine()).reflect({ model });
    return { id: r.id, path: r.path, day: r.day, about: r.about, modelPart: r.modelPart };
  },
};
