// Registers the memory tools with vscode.lm (SPEC R-UI-2); package.json's languageModelTools declares the same
// names, descriptions and schemas. One CallBudget serves search and expand together (3 calls per message);
// memory_save has its own (2 per message).
import * as vscode from 'vscode';
import { CallBudget } from '../../engine/recall/callBudget';
import { MemoryExpandTool } from './memoryExpandTool';
import { MemoryForgetTool } from './memoryForgetTool';
import { MemoryLoadDocTool } from './memoryLoadDocTool';
import { MemorySaveTool } from './memorySaveTool';
import { MemorySearchTool } from './memorySearchTool';
import { MemoryStatusTool } from './memoryStatusTool';
import type { ToolDeps } from './toolSupport';

/** The tools offered to the @memory participant's model (drill-down only; forget stays with the user). */
export const PARTICIPANT_TOOL_IDS = [MemorySearchTool.toolId, MemoryExpandTool.toolId] as const;

export function createCallBudget(maxCalls: () => number): CallBudget {
  return new CallBudget({ maxCalls });
}

export function registerMemoryTools(context: vscode.ExtensionContext, deps: ToolDeps): void {
  context.subscriptions.push(
    vscode.lm.registerTool(MemorySearchTool.toolId, new MemorySearchTool(deps)),
    vscode.lm.registerTool(MemorySearchTool.aliasId, new MemorySearchTool(deps, MemorySearchTool.aliasId)),
    vscode.lm.registerTool(MemoryExpandTool.toolId, new MemoryExpandTool(deps)),
    vscode.lm.registerTool(MemoryStatusTool.toolId, new MemoryStatusTool(deps)),
    vscode.lm.registerTool(MemoryForgetTool.toolId, new MemoryForgetTool(deps)),
    vscode.lm.registerTool(MemorySaveTool.toolId, new MemorySaveTool(deps)),
    vscode.lm.registerTool(MemoryLoadDocTool.toolId, new MemoryLoadDocTool(deps)),
  );
}
