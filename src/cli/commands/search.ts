// `vscode-memory search`.
import { intOpt } from '../../cliArgs';
import { MemoryError } from '../../engine/errors';
import { type Command, READ_OPTS, readCtx } from '../command';

export const searchCommand: Command = {
  name: 'search',
  summary: 'ranked hits with ids',
  usage: 'search QUERY [--project ID] [--conversation ID] [--k N]',
  options: { ...READ_OPTS, k: { type: 'string' } },
  run: async (p, c) => {
    const q = p.positionals.join(' ');
    if (!q.trim()) throw new MemoryError('E_USAGE', 'search needs a query');
    const hits = await (await c.engine()).search(q, readCtx(p, c), intOpt(p.values.k, 'k', 1, 100));
    return { hits: hits.map((h) => ({ id: h.id, kind: h.kind, score: h.score, trust: h.trust, text: h.text })) };
  },
  format: (v) => {
    const hits = (v as { hits: { id: string; score: number; trust: string; text: string }[] }).hits;
    return hits.map((h) => `${h.id}  ${h.score.toFixed(3)}  ${h.trust}\n  ${h.text}`).join('\n') || '(no hits)';
  },
};
