// The project id of a folder, without VS Code (SPEC §10): `<folder name>-<6 hex>`, the hash over the git
// `origin` URL when there is one (every clone of a repository shares its memory), else over the folder's
// `file:` URI exactly as VS Code prints it (`vscode.Uri.file(p).toString()`). The extension
// (vscode/config.ts) and the agent hooks (which only get a `cwd`) both derive it here, so an agent started
// in a workspace writes into the same project that `@memory` reads in that window.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

/** `memory.projectId`'s grammar: lower case, [a-z0-9._-], at most 64 chars. */
export function cleanProjectId(s: string): string {
  return s.trim().toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 64);
}

/** 64 KB: a git config larger than this is not a repository's ordinary config (as vscode/config.ts). */
const MAX_GIT_CONFIG_BYTES = 64 * 1024;

function readSmall(file: string): string | undefined {
  try {
    if (statSync(file).size > MAX_GIT_CONFIG_BYTES) return undefined;
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * What identifies a repository: its `origin` URL without scheme, user and `.git`; undefined without one.
 * Like the extension's reader (vscode/config.ts gitOriginOf), a worktree or submodule — whose `.git` is a file
 * `gitdir: …` — is followed to the repository it belongs to (`commondir`), so an agent started in a worktree
 * files into the same project as the window.
 */
export function gitOriginIdentity(folderFsPath: string): string | undefined {
  const dotGit = path.join(folderFsPath, '.git');
  let configs = [path.join(dotGit, 'config')];
  try {
    if (statSync(dotGit).isFile()) {
      const pointer = /^gitdir:\s*(.+)$/m.exec(readSmall(dotGit) ?? '')?.[1]?.trim();
      if (!pointer) return undefined;
      const gitDir = path.resolve(folderFsPath, pointer);
      const common = readSmall(path.join(gitDir, 'commondir'))?.trim();
      const commonDir = common ? path.resolve(gitDir, common) : gitDir;
      configs = [path.join(commonDir, 'config'), path.join(gitDir, 'config')];
    }
  } catch {
    return undefined; // not a git repository: the folder's location identifies it
  }
  for (const file of configs) {
    const origin = /\[remote "origin"\][^[]*?url\s*=\s*(\S+)/.exec(readSmall(file) ?? '')?.[1];
    if (origin) return origin.replace(/\.git$/, '').replace(/^[a-z]+:\/\/([^@/]+@)?/i, '').replace(/^[^@]+@([^:]+):/, '$1/');
  }
  return undefined;
}

/** `name-<6 hex of identity>`: `identity` is the git origin identity, else the folder's URI string. */
export function projectIdOf(name: string, identity: string): string {
  return `${cleanProjectId(name) || 'workspace'}-${createHash('sha256').update(identity).digest('hex').slice(0, 6)}`;
}

const KEEP = /[A-Za-z0-9\-._~/]/;

/**
 * `vscode.Uri.file(fsPath).toString()` without VS Code: `file://` + the path with `\` turned into `/`, a
 * Windows drive letter lower-cased, every character but the unreserved ones and `/` percent-encoded (upper-case
 * hex, as VS Code's encodeURIComponentFast does; `!'()*` too). UNC paths (`\\server\share`) carry the server as
 * the authority. Checked against the real `vscode.Uri` in the integration tests.
 */
export function fileUriString(fsPath: string, windows = process.platform === 'win32'): string {
  let p = windows ? fsPath.replace(/\\/g, '/') : fsPath;
  let authority = '';
  if (p.startsWith('//')) {
    const end = p.indexOf('/', 2);
    authority = end === -1 ? p.slice(2) : p.slice(2, end);
    p = end === -1 ? '/' : p.slice(end);
  } else if (!p.startsWith('/')) p = '/' + p;
  if (/^\/[A-Za-z]:/.test(p)) p = '/' + p[1]!.toLowerCase() + p.slice(2);
  let out = '';
  for (const ch of p) {
    if (KEEP.test(ch)) out += ch;
    else if (ch.length === 1 && ch.charCodeAt(0) < 128) out += '%' + ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');
    else out += encodeURIComponent(ch);
  }
  return `file://${authority.toLowerCase()}${out}`;
}

/** The derived project id of a folder on disk (no `memory.projectId` setting applies outside VS Code). */
export function projectIdForFolder(folderFsPath: string): string {
  const abs = path.resolve(folderFsPath);
  return projectIdOf(path.basename(abs), gitOriginIdentity(abs) ?? fileUriString(abs));
}
