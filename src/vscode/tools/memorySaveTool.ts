// `memory_save` (tool reference #memorySave; issue #17): an agent keeps one durable note — a fact, preference or
// decision the user stated — through the engine's save verb (poison gate, masking, secrets tag, reinforcement of
// the same fact instead of a copy; trust derived, origin = this path and the model). The scope is `project`
// (this workspace's project, decided here, never by the agent) or `global`. Two saves per user message.
import type * as vscode from 'vscode';
import { preflightSave, type AgentSaveResult } from '../../engine/write/agentSave';
import type { NoteKind } from '../../engine/types';
import { guarded, scopeOf, ToolRefusal, type ToolDeps } from './toolSupport';

export interface MemorySaveInput {
  text: string;
  scope: 'project' | 'global';
  kind?: NoteKind;
  tags?: string[];
}

/** The answering model when VS Code says which (the proposed `model` field of the invocation options). */
function modelOf(options: unknown): { provider?: string; model?: string } {
  const m = (options as { model?: { id?: unknown; vendor?: unknown } } | undefined)?.model;
  const str = (v: unknown) => (typeof v === 'string' && v ? v.slice(0, 120) : undefined);
  return { provider: str(m?.vendor), model: str(m?.id) };
}

export function describeSave(r: AgentSaveResult): string {
  const flags = [
    r.masked ? `${r.masked} secret${r.masked === 1 ? ' was' : 's were'} masked and the note is tagged contains-secrets, so it will not be recalled` : '',
    r.untrusted ? 'it was flagged untrusted by the poison gate and weighs less in recall' : '',
  ].filter(Boolean).join('; ');
  const head = r.outcome === 'reinforced'
    ? `Already in memory as [source:${r.id}]: noted it again in that note's History instead of saving a copy.`
    : `Saved as [source:${r.id}] (${r.kind}, ${r.scope === 'project' ? 'this project only' : 'every project'}).`;
  return flags ? `${head} Note: ${flags}.` : head;
}

export class MemorySaveTool implements vscode.LanguageModelTool<MemorySaveInput> {
  static readonly toolId = 'memory_save';

  constructor(private readonly deps: ToolDeps) {}

  invoke(options: vscode.LanguageModelToolInvocationOptions<MemorySaveInput>): Promise<vscode.LanguageModelToolResult> {
    const tool = MemorySaveTool.toolId;
    return guarded(this.deps, tool, async () => {
      const input = options.input as unknown;
      if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new ToolRefusal('the input must be a JSON object with "text" and "scope"');
      const o = input as Record<string, unknown>;
      if (typeof o._invalid === 'string') throw new ToolRefusal('the arguments were not valid JSON');
      const scope = scopeOf(this.deps, options.toolInvocationToken);
      const note = {
        text: o.text as string, scope: o.scope as MemorySaveInput['scope'], kind: o.kind as NoteKind | undefined, tags: o.tags as string[] | undefined,
        project: scope.read.project, projectType: scope.read.projectType,
        origin: { path: scope.fromParticipant ? 'vscode-participant' : 'vscode-tool', conversation: scope.fromParticipant ? scope.read.conversation : undefined, ...modelOf(options) },
      };
      preflightSave(note); // a call the gates refuse costs no budget
      const verdict = this.deps.saveBudget.take(scope.budgetKey);
      if (!verdict.ok) {
        this.deps.logger.info('tool.budget_stop', { tool });
        return verdict.message;
      }
      const engine = await this.deps.host.get();
      const r = await engine.save(note);
      this.deps.logger.info('tool.save', { id: r.id, outcome: r.outcome, participant: scope.fromParticipant });
      return describeSave(r);
    });
  }

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<MemorySaveInput>): vscode.PreparedToolInvocation {
    const t = typeof options.input?.text === 'string' ? options.input.text.replace(/\s+/g, ' ').trim() : '';
    return { invocationMessage: `Saving to memory: "${t.length > 60 ? t.slice(0, 59) + '…' : t}"` };
  }
}
