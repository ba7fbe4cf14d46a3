// The API other extensions get from `vscode.extensions.getExtension('memory-for-vscode.vscode-memory').exports`
// (issue #17): versioned, small, and safe to hand to code we do not control. `recall` gives another chat
// participant the same recall block @memory puts into its own requests (masked unless the caller says its model
// runs on this machine; fail-soft: a problem is an empty block with a reason); `recordTurn` stores one exchange
// the way @memory does (the user side `owner`: the user typed it). Conversations are namespaced `api:` so another
// extension's ids never meet @memory's. Memory off → an empty block and nothing recorded.
import { errorCode } from '../engine/errors';
import type { Logger } from '../engine/host';
import { maskOrWithhold } from '../engine/write/mask';
import type { ProjectContext } from './config';
import type { EngineHost } from './engineHost';

export const MEMORY_API_VERSION = 1;

export interface RecallOptions {
  /** The answering model's context window in tokens (scales the block's budget); default 8,192. */
  window?: number;
  /** The project whose memory to read; default: the open workspace's project. */
  project?: string;
  /** Your chat session's id; a new one is fine (a first turn). */
  conversation?: string;
  /** true only when your model runs on this machine: the block then goes out unmasked. */
  local?: boolean;
}

export interface RecallAnswer {
  /** `<memory-context …>…</memory-context>` to put on top of the user's message, or '' */
  block: string;
  /** The ids the block cites. */
  ids: string[];
  /** Why the block is empty, when it is: disabled, no_hits, withheld, bad_input, or an error code. */
  reason?: string;
}

export interface RecordTurnInput {
  conversation: string;
  user: string;
  assistant: string;
  project?: string;
  title?: string;
  /** The model that answered (provenance). */
  provider?: string;
  model?: string;
}

export interface MemoryApiV1 {
  readonly version: 1;
  recall(message: string, options?: RecallOptions): Promise<RecallAnswer>;
  recordTurn(turn: RecordTurnInput): Promise<{ ids: string[] }>;
}

const MAX_CONVERSATION_CHARS = 200;

function conversationId(raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string' || !raw.trim() || raw.length > MAX_CONVERSATION_CHARS || /[\0\r\n]/.test(raw)) return '';
  return `api:${raw.trim()}`;
}

export function createMemoryApi(deps: { host: EngineHost; enabled: () => boolean; project: () => ProjectContext; logger: Logger }): MemoryApiV1 {
  return Object.freeze({
    version: MEMORY_API_VERSION as 1,
    async recall(message: string, options: RecallOptions = {}): Promise<RecallAnswer> {
      if (!deps.enabled()) return { block: '', ids: [], reason: 'disabled' };
      const conversation = conversationId(options?.conversation);
      if (typeof message !== 'string' || !message.trim() || conversation === '') return { block: '', ids: [], reason: 'bad_input' };
      const window = Number.isInteger(options.window) && options.window! > 0 ? options.window : 8192;
      const p = deps.project();
      const project = typeof options.project === 'string' && options.project ? options.project : p.project;
      try {
        const engine = await deps.host.get();
        const r = await engine.recall({ message, conversation, newConversation: true, project, projectType: p.projectType, window });
        let block = r.block;
        if (block && options.local !== true) {
          const m = maskOrWithhold(block);
          if (!m.ok) { deps.logger.warn('api.block_withheld', { reason: m.reason }); return { block: '', ids: [], reason: 'withheld' }; }
          block = m.text;
        }
        deps.logger.info('api.recall', { items: r.items.length, reason: r.reason });
        return { block, ids: [...r.items], ...(block ? {} : { reason: r.reason ?? 'no_hits' }) };
      } catch (e) {
        const code = errorCode(e, 'E_INTERNAL');
        deps.logger.warn('api.recall_failed', { code });
        return { block: '', ids: [], reason: code };
      }
    },
    async recordTurn(turn: RecordTurnInput): Promise<{ ids: string[] }> {
      if (!deps.enabled()) return { ids: [] };
      const conversation = conversationId(turn?.conversation);
      if (!conversation || typeof turn.user !== 'string' || typeof turn.assistant !== 'string') {
        throw new TypeError('recordTurn needs { conversation, user, assistant } as strings (conversation: 1–200 chars, one line)');
      }
      const p = deps.project();
      const engine = await deps.host.get();
      const str = (v: unknown) => (typeof v === 'string' && v ? v.slice(0, 200) : undefined);
      const r = await engine.recordTurn({
        conversation, user: turn.user, assistant: turn.assistant, project: str(turn.project) ?? p.project, projectType: p.projectType,
        title: str(turn.title), provider: str(turn.provider), model: str(turn.model), trust: 'owner', entryPath: 'api',
      });
      deps.logger.info('api.record_turn', { saved: r.ids.length });
      return { ids: r.ids };
    },
  });
}
