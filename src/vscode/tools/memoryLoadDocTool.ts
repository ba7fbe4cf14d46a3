// `memory_load_doc` (SPEC R-WRITE-8; issue #17): loads a Markdown file of the open workspace into memory as pinned
// `dc:` sections, idempotently (only changed sections cost anything). Only files inside a workspace folder — after
// following symlinks — with a Markdown extension; the text is third-party (trust `ingested`) and lands in the
// workspace's project. The user confirms each load in the chat. In Restricted Mode nothing is loaded (issue #12);
// the bytes are read through vscode.workspace.fs, and a remote or virtual workspace folder (not `file:`) takes a
// relative path without `..` segments (symlinks cannot be resolved there, so nothing can point outside).
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readDocumentBytes } from '../commands/memoryCommands';
import { guarded, ToolRefusal, type ToolDeps } from './toolSupport';

export interface MemoryLoadDocInput {
  path: string;
}

const MARKDOWN = /\.(md|markdown)$/i;

/** The real path of `p` when it lies inside one of `roots` (both sides with symlinks resolved), else a refusal. */
export async function resolveWorkspaceMarkdown(p: unknown, roots: readonly string[]): Promise<string> {
  if (typeof p !== 'string' || !p.trim()) throw new ToolRefusal('"path" must be the path of a Markdown file in this workspace, e.g. "docs/architecture.md"');
  if (p.length > 1000 || /[\0\r\n]/.test(p)) throw new ToolRefusal('"path" is not a file path');
  if (roots.length === 0) throw new ToolRefusal('no folder is open, so there is no workspace to load a document from');
  if (!MARKDOWN.test(p.trim())) throw new ToolRefusal('only Markdown files (.md, .markdown) can be loaded');
  const candidates = path.isAbsolute(p.trim()) ? [p.trim()] : roots.map((r) => path.join(r, p.trim()));
  for (const c of candidates) {
    let real: string;
    try {
      real = await fsp.realpath(c);
    } catch {
      continue;
    }
    for (const root of roots) {
      const realRoot = await fsp.realpath(root).catch(() => root);
      const rel = path.relative(realRoot, real);
      if (rel && rel !== '..' && !rel.startsWith('..' + path.sep) && !path.isAbsolute(rel)) {
        if (!(await fsp.stat(real)).isFile()) throw new ToolRefusal('"path" is not a file');
        return real;
      }
    }
    throw new ToolRefusal('"path" is outside the open workspace folders and is refused');
  }
  throw new ToolRefusal('no such file in the workspace');
}

/** A relative Markdown path inside a non-`file:` workspace folder (remote, virtual): no `..`, no absolute path. */
export function remoteWorkspaceMarkdown(p: unknown, folders: readonly vscode.Uri[]): vscode.Uri {
  if (typeof p !== 'string' || !p.trim()) throw new ToolRefusal('"path" must be the path of a Markdown file in this workspace, e.g. "docs/architecture.md"');
  const rel = p.trim().replace(/\\/g, '/');
  if (rel.length > 1000 || /[\0\r\n]/.test(rel)) throw new ToolRefusal('"path" is not a file path');
  if (!MARKDOWN.test(rel)) throw new ToolRefusal('only Markdown files (.md, .markdown) can be loaded');
  if (rel.startsWith('/') || rel.split('/').includes('..')) throw new ToolRefusal('"path" is outside the open workspace folders and is refused');
  if (!folders[0]) throw new ToolRefusal('no folder is open, so there is no workspace to load a document from');
  return vscode.Uri.joinPath(folders[0], rel);
}

export class MemoryLoadDocTool implements vscode.LanguageModelTool<MemoryLoadDocInput> {
  static readonly toolId = 'memory_load_doc';

  constructor(
    private readonly deps: ToolDeps,
    private readonly roots = () => (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
    private readonly remoteRoots = () => (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme !== 'file').map((f) => f.uri),
    private readonly trusted = () => vscode.workspace.isTrusted,
  ) {}

  invoke(options: vscode.LanguageModelToolInvocationOptions<MemoryLoadDocInput>): Promise<vscode.LanguageModelToolResult> {
    const tool = MemoryLoadDocTool.toolId;
    return guarded(this.deps, tool, async () => {
      const input = options.input as unknown;
      if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new ToolRefusal('the input must be a JSON object with "path"');
      if (!this.trusted()) throw new ToolRefusal('Restricted Mode: memory loads no documents from this workspace until you trust it');
      const p = (input as Record<string, unknown>).path;
      const local = this.roots();
      const uri = local.length || !this.remoteRoots().length
        ? vscode.Uri.file(await resolveWorkspaceMarkdown(p, local))
        : remoteWorkspaceMarkdown(p, this.remoteRoots());
      const bytes = await readDocumentBytes(uri);
      const file = uri.scheme === 'file' ? uri.fsPath : uri.toString();
      const engine = await this.deps.host.get();
      const r = await engine.loadDocument({ file: { name: file, bytes }, project: this.deps.project().project, trust: 'ingested' });
      this.deps.logger.info('tool.load_doc', { added: r.added, updated: r.updated, unchanged: r.unchanged, removed: r.removed, secret: r.secret });
      return `Loaded ${path.posix.basename(uri.path)} into memory: ${r.added} new, ${r.updated} changed, ${r.unchanged} unchanged, ${r.removed} removed section(s)`
        + `${r.secret ? `; ${r.secret} with credentials kept out of recall` : ''}. Its sections are found with memory_search (ids dc:…).`;
    });
  }

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<MemoryLoadDocInput>): vscode.PreparedToolInvocation {
    const p = typeof options.input?.path === 'string' ? options.input.path.slice(0, 200) : '(no path)';
    // Memory off: nothing will be loaded (invoke says so), so there is nothing to confirm.
    if (!this.deps.enabled()) return { invocationMessage: `Loading ${p} into memory` };
    return {
      invocationMessage: `Loading ${p} into memory`,
      confirmationMessages: {
        title: 'Load a document into memory?',
        message: new vscode.MarkdownString(`Load \`${p.replace(/`/g, '')}\` into long-term memory as pinned sections (re-loading updates only what changed)?`),
      },
    };
  }
}
