// Where the extension keeps its store by default, so the CLI opens the same one (SPEC R-CLI-1).
import { existsSync } from 'node:fs';
import { homedir, platform } from 'node:os';
import { join } from 'node:path';

export const EXTENSION_ID = 'memory-for-vscode.vscode-memory';

/** Candidate global-storage folders of the extension, most likely first. */
export function globalStorageCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = homedir();
  const out: string[] = [];
  const add = (userDir: string) => out.push(join(userDir, 'globalStorage', EXTENSION_ID));
  if (platform() === 'darwin') {
    add(join(home, 'Library', 'Application Support', 'Code', 'User'));
    add(join(home, 'Library', 'Application Support', 'Code - Insiders', 'User'));
  } else if (platform() === 'win32') {
    const appData = env.APPDATA ?? join(home, 'AppData', 'Roaming');
    add(join(appData, 'Code', 'User'));
    add(join(appData, 'Code - Insiders', 'User'));
  } else {
    const config = env.XDG_CONFIG_HOME ?? join(home, '.config');
    add(join(config, 'Code', 'User'));
    add(join(config, 'Code - Insiders', 'User'));
  }
  const data = env.XDG_DATA_HOME ?? join(home, '.local', 'share');
  add(join(data, 'code-server', 'User'));
  return out;
}

/** `VSCODE_MEMORY_STORE`, else the first existing global-storage folder, else the desktop default. */
export function defaultStoreDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.VSCODE_MEMORY_STORE) return env.VSCODE_MEMORY_STORE;
  const candidates = globalStorageCandidates(env);
  return candidates.find((c) => existsSync(c)) ?? candidates[0];
}

export function defaultVaultDir(storeDir: string): string {
  return join(storeDir, 'vault');
}
