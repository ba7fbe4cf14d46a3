// `vscode-memory remember`.
import { stringOpt } from '../../cliArgs';
import { MemoryError } from '../../engine/errors';
import { NOTE_KINDS, type NoteKind } from '../../engine/types';
import type { Command } from '../command';

export const rememberCommand: Command = {
  name: 'remember',
  summary: 'pinned save of a note (bypasses the save filter)',
  usage: 'remember TEXT [--project ID] [--kind user|feedback|domain|project|reference]',
  options: { project: { type: 'string' }, kind: { type: 'string' } },
  run: async (p, c) => {
    const kind = stringOpt(p.values.kind);
    if (kind !== undefined && !NOTE_KINDS.includes(kind as NoteKind)) throw new MemoryError('E_USAGE', `--kind must be one of ${NOTE_KINDS.join(', ')}`);
    const r = await (await c.engine()).remember({ text: p.positionals.join(' '), project: stringOpt(p.values.project), kind: kind as NoteKind | undefined });
    return { id: r.id };
  },
};
