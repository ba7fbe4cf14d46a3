// Watches a few named files in one folder (non-recursive) and calls back once they have been quiet for a
// moment: the project vault's view of `.git` (HEAD, index) and of the agent files at the workspace root.
import { watch } from 'node:fs';

export interface NameWatch { close(): void }

/** Watches `dir` for changes to any of `names`; `onSettled` runs `settleMs` after the last one. Undefined: not watchable. */
export function watchNames(dir: string, names: ReadonlySet<string>, settleMs: number, onSettled: () => void): NameWatch | undefined {
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  try {
    const w = watch(dir, (_ev, name) => {
      if (closed || name === null || !names.has(String(name))) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => { timer = undefined; if (!closed) onSettled(); }, settleMs);
    });
    const close = () => { closed = true; if (timer) clearTimeout(timer); w.close(); };
    w.on('error', close);
    return { close };
  } catch {
    return undefined;
  }
}
