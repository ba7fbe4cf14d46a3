// Finding the project vault outside VS Code (issue #15 point 5): the CLI, the MCP server and the agent hooks
// look for a `.memory/` folder from the working directory up to the git root (the first one found wins), so
// Claude Code or Copilot CLI started in the repository see the team's notes. `--project-vault DIR` (or
// VSCODE_MEMORY_PROJECT_VAULT=DIR) names it; `--no-project-vault` (or VSCODE_MEMORY_PROJECT_VAULT=off) turns it off.
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { MemoryEngine } from '../engine/engine';
import { errorCode } from '../engine/errors';
import type { Logger } from '../engine/host';
import { defaultProjectOf, projectRootOf } from './hookHandler';

export const PROJECT_VAULT_ENV = 'VSCODE_MEMORY_PROJECT_VAULT';
export const PROJECT_VAULT_FOLDER = '.memory';

export interface ProjectVaultLocation {
  workspaceRoot: string;
  /** Relative to workspaceRoot. */
  folder: string;
  projectId: string;
}

export interface LocateOptions {
  /** `--project-vault DIR` (relative to cwd). */
  override?: string;
  /** `--no-project-vault`. */
  off?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Workspace folders the extension has seen → their project ids (HookState.knownWorkspaces). */
  known?: Readonly<Record<string, string>>;
}

function isDir(p: string): boolean {
  try { return statSync(p).isDirectory(); } catch { return false; }
}

/** Where the project vault of `cwd` is, or undefined (none, or turned off). */
export function locateProjectVault(cwd: string, o: LocateOptions = {}): ProjectVaultLocation | undefined {
  const envValue = o.env?.[PROJECT_VAULT_ENV]?.trim();
  if (o.off || envValue === 'off' || envValue === '0') return undefined;
  const base = path.resolve(cwd);
  const named = o.override ?? (envValue ? envValue : undefined);
  if (named) {
    const dir = path.resolve(base, named);
    const root = projectRootOf(path.dirname(dir));
    const inside = !path.relative(root, dir).startsWith('..');
    const workspaceRoot = inside ? root : path.dirname(dir);
    const projectId = defaultProjectOf(workspaceRoot, o.known);
    return projectId ? { workspaceRoot, folder: path.relative(workspaceRoot, dir).split(path.sep).join('/'), projectId } : undefined;
  }
  let dir = base;
  for (;;) {
    if (isDir(path.join(dir, PROJECT_VAULT_FOLDER))) {
      const projectId = defaultProjectOf(dir, o.known);
      return projectId ? { workspaceRoot: dir, folder: PROJECT_VAULT_FOLDER, projectId } : undefined;
    }
    if (existsSync(path.join(dir, '.git'))) return undefined; // the git root: stop
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/**
 * Attaches the located vault to `engine` (no watcher: one sync per process). A failure is logged and leaves the
 * engine without a project vault; returns the location attached, or undefined.
 */
export async function attachProjectVault(engine: MemoryEngine, loc: ProjectVaultLocation | undefined, logger: Logger): Promise<ProjectVaultLocation | undefined> {
  if (!loc) return undefined;
  try {
    await engine.project.attach({ workspaceRoot: loc.workspaceRoot, folder: loc.folder, projectId: loc.projectId, watch: false });
    return loc;
  } catch (e) {
    logger.warn('project.attach_failed', { code: errorCode(e) });
    return undefined;
  }
}
