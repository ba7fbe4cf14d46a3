// `memory_forget` (SPEC R-UI-2, R-MAINT-4): deletes one memory by id after the user confirms it in the chat
// (prepareInvocation's confirmation). The only tool that changes memory; the audit log records the actor `tool`.
import * as vscode from 'vscode';
import { guarded, readId, type ToolDeps } from './toolSupport';

export interface MemoryForgetInput {
  id: string;
}

export class MemoryForgetTool implements vscode.LanguageModelTool<MemoryForgetInput> {
  static readonly toolId = 'memory_forget';

  constructor(private readonly deps: ToolDeps) {}

  invoke(options: vscode.LanguageModelToolInvocationOptions<MemoryForgetInput>): Promise<vscode.LanguageModelToolResult> {
    const tool = MemoryForgetTool.toolId;
    return guarded(this.deps, tool, async () => {
      const id = readId(options.input);
      const engine = await this.deps.host.get();
      // An unknown id: engine.forget answers E_NOT_FOUND, which `guarded` turns into a sentence.
      const r = await engine.forget(id, 'tool');
      this.deps.logger.info('tool.forget', { id, removed: r.removed.length });
      return `Forgot ${id} (${r.removed.length} item${r.removed.length === 1 ? '' : 's'} removed, including rows derived only from it). Tell the user it is gone.`;
    });
  }

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<MemoryForgetInput>): vscode.PreparedToolInvocation {
    const id = typeof options.input?.id === 'string' ? options.input.id.slice(0, 200) : '(no id)';
    // Memory off: nothing will be deleted (invoke says so), so there is nothing to confirm.
    if (!this.deps.enabled()) return { invocationMessage: `Forgetting memory ${id}` };
    return {
      invocationMessage: `Forgetting memory ${id}`,
      confirmationMessages: {
        title: 'Forget a memory?',
        message: new vscode.MarkdownString(`Delete memory \`${id.replace(/`/g, '')}\` and the rows derived only from it? This cannot be undone.`),
      },
    };
  }
}
