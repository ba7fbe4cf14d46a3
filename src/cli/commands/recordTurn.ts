// `vscode-memory record-turn`.
import { stringOpt } from '../../cliArgs';
import { MemoryError } from '../../engine/errors';
import { type Command, parseAt } from '../command';

export const recordTurnCommand: Command = {
  name: 'record-turn',
  summary: 'the per-turn save, exactly as the chat participant does it',
  usage: 'record-turn --conversation ID --user TEXT --assistant TEXT [--project ID] [--project-type T] [--title T] [--provider P] [--model M] [--trust owner|peer|ingested] [--at ISO-8601]',
  options: {
    conversation: { type: 'string' }, user: { type: 'string' }, assistant: { type: 'string' }, project: { type: 'string' },
    'project-type': { type: 'string' }, title: { type: 'string' }, provider: { type: 'string' }, model: { type: 'string' },
    trust: { type: 'string' }, at: { type: 'string' },
  },
  run: async (p, c) => {
    const conversation = stringOpt(p.values.conversation);
    const user = stringOpt(p.values.user);
    const assistant = stringOpt(p.values.assistant);
    if (!conversation || user === undefined || assistant === undefined) throw new MemoryError('E_USAGE', 'record-turn needs --conversation, --user and --assistant');
    const trust = stringOpt(p.values.trust);
    if (trust !== undefined && !['owner', 'peer', 'ingested'].includes(trust)) throw new MemoryError('E_USAGE', '--trust must be owner, peer or ingested');
    const r = await (await c.engine()).recordTurn({
      conversation, user, assistant, project: stringOpt(p.values.project), projectType: stringOpt(p.values['project-type']),
      title: stringOpt(p.values.title), provider: stringOpt(p.values.provider), model: stringOpt(p.values.model),
      trust: trust as 'owner' | 'peer' | 'ingested' | undefined, at: parseAt(stringOpt(p.values.at)), entryPath: 'cli',
    });
    return { ids: r.ids, skipped: r.skipped };
  },
};
