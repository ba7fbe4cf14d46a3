// `memory_status` (SPEC R-UI-2, R-RECALL-10): the engine card as counts and switches — never memory text.
// Read-only and not counted against the drill-down budget (it reveals nothing recalled).
import type * as vscode from 'vscode';
import { guarded, type ToolDeps } from './toolSupport';

export class MemoryStatusTool implements vscode.LanguageModelTool<Record<string, never>> {
  static readonly toolId = 'memory_status';

  constructor(private readonly deps: ToolDeps) {}

  invoke(): Promise<vscode.LanguageModelToolResult> {
    return guarded(this.deps, MemoryStatusTool.toolId, async () => {
      const engine = await this.deps.host.get();
      const s = engine.status();
      const card = {
        enabled: s.enabled, embedder: s.embedder.id, embedderModel: s.embedder.model, items: s.items,
        vectors: { summaries: s.vectors.summaries, facts: s.vectors.facts, partitions: s.vectors.partitions, lastRun: s.vectors.lastRun },
        rawRecord: s.rawRecord.enabled, switches: s.switches, recallBudgetChars: s.recallBudgetChars, health: s.health.level,
      };
      return `Memory engine status (counts and switches only, no memory content): ${JSON.stringify(card)}`;
    });
  }
}
