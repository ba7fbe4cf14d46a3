// `vscode-memory mcp`.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { stringOpt } from '../../cliArgs';
import { defaultProjectOf } from '../../hooks/hookHandler';
import { HookState } from '../../hooks/hookState';
import type { Command } from '../command';

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'MCP server on stdio (memory_search, _expand, _save, _status, _forget) for agents outside VS Code',
  usage: 'mcp [--project ID] [--project-type T]',
  options: { project: { type: 'string' }, 'project-type': { type: 'string' } },
  silent: true,
  run: async (p, c) => {
    const { serveMcpStdio } = await import('../../mcp/mcpServer');
    // Without --project: the project of the folder the agent runs in, as the hooks find it (the window's id for a
    // workspace the extension has seen, with memory.projectId applied; else the repository's derived id).
    const project = stringOpt(p.values.project) ?? c.projectVault?.projectId ?? defaultProjectOf(process.cwd(), new HookState(c.storeDir).knownWorkspaces());
    await serveMcpStdio({ engine: await c.engine(), project, projectType: stringOpt(p.values['project-type']), logger: c.logger, version: packageVersion(c.binDir) });
  },
};

/** The extension's version (dist/cli.js sits next to package.json's folder in the install); '0.0.0' elsewhere. */
function packageVersion(binDir: string): string {
  try {
    const v = (JSON.parse(readFileSync(path.join(binDir, '..', 'package.json'), 'utf8')) as { version?: unknown }).version;
    return typeof v === 'string' ? v : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
