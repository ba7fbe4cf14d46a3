// The @memory slash commands (SPEC R-UI-1): /remember (pinned owner note, confirmed with its id before any
// reply), /forget (shows the item and a button; the deletion happens only after a modal confirmation),
// /search (hits with ids), /status (engine card figures), /today (opens today's note).
import * as vscode from 'vscode';
import { describeForgetPlan, type MemoryEngine } from '../../engine/engine';
import { MemoryError } from '../../engine/errors';
import type { Logger } from '../../engine/host';
import { describeHealth, describeSkips } from '../../engine/maintain/health';
import type { EngineSettings } from '../../engine/settings';
import { collectStatusFigures } from '../commands/statusCommand';
import type { ProjectContext } from '../config';
import type { EngineHost } from '../engineHost';
import { MEMORY_COMMANDS } from '../commands/memoryCommands';
import { referenceUri } from '../commands/memoryDocuments';

export interface SlashContext {
  engine: MemoryEngine;
  host: EngineHost;
  stream: vscode.ChatResponseStream;
  project: ProjectContext;
  conversation: string;
  logger: Logger;
  settings: EngineSettings;
}

/** Memory text shown in chat markdown: one line, no markdown control characters doing surprising things. */
export function inlineText(s: string, max = 240): string {
  const one = s.replace(/\s+/g, ' ').trim();
  const cut = one.length > max ? `${one.slice(0, max - 1)}…` : one;
  return cut.replace(/([\\`*_[\]<>|#])/g, '\\$1');
}

export async function runSlashCommand(command: string, prompt: string, c: SlashContext): Promise<void> {
  const arg = prompt.trim();
  switch (command) {
    case 'remember': {
      if (!arg) throw new MemoryError('E_BAD_INPUT', 'write what to remember after /remember');
      const r = await c.engine.remember({ text: arg, kind: 'user' });
      c.logger.info('participant.remember', { id: r.id });
      c.stream.markdown(`Remembered as \`${r.id}\` — a pinned note in the vault, listed in every recall while in scope. Edit or delete the file any time.`);
      c.stream.reference(vscode.Uri.file(r.path));
      return;
    }
    case 'forget': {
      const id = arg.replace(/^\[?source:/, '').replace(/\]$/, '');
      if (!id) throw new MemoryError('E_BAD_INPUT', 'give the id to forget after /forget (ids come from /search)');
      const item = c.engine.get(id);
      if (!item) throw new MemoryError('E_NOT_FOUND', `no memory has the id ${id}`);
      const label = item.summary ?? item.title ?? item.text ?? id;
      const plan = await c.engine.forgetPreview(id);
      c.stream.markdown(`This will delete \`${id}\` (${item.kind}): ${inlineText(label)}\n\nIt removes:\n${describeForgetPlan(plan).map((l) => `- ${l}`).join('\n')}\n\nThis cannot be undone.\n\n`);
      c.stream.button({ command: MEMORY_COMMANDS.forget, arguments: [id], title: `Forget ${id}` });
      return;
    }
    case 'search': {
      if (!arg) throw new MemoryError('E_BAD_INPUT', 'write what to search for after /search');
      const hits = await c.engine.search(arg, { conversation: c.conversation, project: c.project.project, projectType: c.project.projectType, newConversation: true }, 10);
      c.logger.info('participant.search', { hits: hits.length });
      if (!hits.length) { c.stream.markdown('Nothing in memory matches that.'); return; }
      c.stream.markdown(`${hits.length} memories, best first:\n\n`);
      for (const h of hits) c.stream.markdown(`- \`${h.id}\` (${h.subkind ?? h.kind}, ${h.trust}, ${h.score.toFixed(2)}) ${inlineText(h.text)}\n`);
      for (const h of hits) c.stream.reference(referenceUri(c.engine, h.id));
      return;
    }
    case 'status': {
      const f = await collectStatusFigures(c.host, c.settings, c.engine.vaultDir);
      const card = f.card;
      const lines = [
        `**Memory is ${f.enabled ? 'on' : 'off'}** · ${f.items} items · embedder \`${f.embedder ?? 'off'}\``
          + (card ? `${card.embedder.model ? ` (model \`${card.embedder.model}\`)` : ''} with vectors for ${card.embedder.vectors} items` : ''),
        card ? `- Vectors: summaries ${card.vectors.summaries}, facts ${card.vectors.facts}; ${card.vectors.partitions} project partitions; last run ${card.vectors.lastRun ?? 'never'}` : '',
        card ? `- Items: ${Object.entries(card.items).map(([k, v]) => `${k} ${v}`).join(', ')}` : '',
        `- Raw record ${f.rawRecord ? 'on' : 'off'} · capture tool results ${f.captureToolResults ? 'on' : 'off'} · capture thinking ${f.captureThinking ? 'on' : 'off'} · include secrets ${f.includeSecrets ? 'on' : 'off'}`,
        `- Recall budget ${f.recallBudgetChars} chars`,
        card ? `- Health: ${describeHealth(card.health)}` : '',
        card ? `- Save filter skipped: ${describeSkips(card.skips)}` : '',
        f.error ? `- Problem: \`${f.error}\`` : '',
      ].filter(Boolean);
      c.stream.markdown(lines.join('\n'));
      return;
    }
    case 'today': {
      const file = await vscode.commands.executeCommand<string | undefined>('memory.todaysNote');
      c.stream.markdown(file ? 'Opened today\'s note.' : 'Today\'s note could not be opened (see the "Memory" output).');
      if (file) c.stream.reference(vscode.Uri.file(file));
      return;
    }
    default:
      throw new MemoryError('E_USAGE', `unknown command /${command}`);
  }
}
