// API keys of local model servers (issue #12): kept in VS Code's SecretStorage, never in settings or logs.
// A key is bound to its entry's name *and* base URL: if `memory.localModels` later points the same name at
// another server, the key is not sent there. Removing a server (or its entry vanishing from the user's
// settings) deletes its key. An index of names with a key lives in global state (SecretStorage cannot list).
import type * as vscode from 'vscode';
import type { Logger } from '../../engine/host';
import type { LocalModelSetting } from '../../engine/settings';

const SECRET_PREFIX = 'memory.localModel.apiKey:';
const INDEX_KEY = 'memory.localModelKeys';

interface StoredKey { baseUrl: string; key: string }

/** The entry's identity for its key: its name, trimmed (names are unique in the user's list). */
function keyName(name: string): string { return name.trim(); }

export class LocalModelKeys {
  constructor(private readonly secrets: vscode.SecretStorage, private readonly memento: vscode.Memento, private readonly logger: Logger) {}

  async set(entry: LocalModelSetting, apiKey: string): Promise<void> {
    const name = keyName(entry.name);
    const value: StoredKey = { baseUrl: entry.baseUrl, key: apiKey };
    await this.secrets.store(SECRET_PREFIX + name, JSON.stringify(value));
    await this.memento.update(INDEX_KEY, [...new Set([...this.names(), name])]);
    this.logger.info('local_model.key_stored', {});
  }

  /** The key for this entry, only if it was stored for the same base URL. */
  async get(entry: Pick<LocalModelSetting, 'name' | 'baseUrl'>): Promise<string | undefined> {
    const raw = await this.secrets.get(SECRET_PREFIX + keyName(entry.name));
    if (!raw) return undefined;
    try {
      const v = JSON.parse(raw) as Partial<StoredKey>;
      if (typeof v.key !== 'string' || !v.key || v.baseUrl !== entry.baseUrl) return undefined;
      return v.key;
    } catch {
      return undefined;
    }
  }

  async has(name: string): Promise<boolean> {
    return (await this.secrets.get(SECRET_PREFIX + keyName(name))) !== undefined;
  }

  async delete(name: string): Promise<void> {
    const n = keyName(name);
    await this.secrets.delete(SECRET_PREFIX + n);
    await this.memento.update(INDEX_KEY, this.names().filter((x) => x !== n));
    this.logger.info('local_model.key_deleted', {});
  }

  /** Deletes the keys of entries that are no longer in the user's list (removed by hand in settings.json). */
  async prune(entries: readonly LocalModelSetting[]): Promise<void> {
    const live = new Set(entries.map((e) => keyName(e.name)));
    for (const n of this.names()) if (!live.has(n)) await this.delete(n);
  }

  private names(): string[] {
    const v = this.memento.get<unknown>(INDEX_KEY);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  }
}
