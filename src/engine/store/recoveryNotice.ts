// The one-time recovery notice (R-STORE-3): what the store repaired at open, said once across every window.
import type { Logger } from '../host';
import type { Store } from './store';

/** Store meta key: the recovery the user was last told about. */
const RECOVERY_NOTICE_KEY = 'notice.recovery';

/**
 * One sentence for the user when the store was repaired at open (a corrupt snapshot moved aside and rebuilt from
 * the journal and the vault, a bad journal moved aside, a torn tail cut, records skipped) — once: the store
 * remembers that it was told, so the next call and the next open say nothing.
 */
export async function takeRecoveryNotice(store: Store, logger: Logger): Promise<string | null> {
  const r = store.openReport;
  const repaired = r.snapshotMovedAside !== null || r.journalMovedAside !== null || r.tornBytes > 0 || r.failedRecords > 0;
  if (!repaired) return null;
  const key = `${r.snapshotMovedAside ?? ''}|${r.journalMovedAside ?? ''}|${r.seq}|${r.tornBytes}|${r.failedRecords}`;
  if (store.meta.get(RECOVERY_NOTICE_KEY) === key) return null;
  await store.transaction((tx) => tx.meta.set(RECOVERY_NOTICE_KEY, key));
  const parts: string[] = [];
  if (r.snapshotMovedAside) parts.push(`its database snapshot was unreadable and was moved aside to ${r.snapshotMovedAside}; it was rebuilt from the journal and the vault`);
  if (r.journalMovedAside) parts.push(`its journal was unreadable and was moved aside to ${r.journalMovedAside}`);
  if (r.tornBytes > 0) parts.push(`an incomplete last write (${r.tornBytes} bytes) was cut off`);
  if (r.failedRecords > 0) parts.push(`${r.failedRecords} journal record(s) could not be applied and were skipped`);
  const tail = r.needsReindex ? ' Some rows may be missing: the vault is being re-indexed (or run "Memory: Rebuild Index").' : '';
  logger.warn('store.recovery_announced', { snapshotMovedAside: r.snapshotMovedAside !== null, journalMovedAside: r.journalMovedAside !== null, failedRecords: r.failedRecords });
  return `Memory repaired its store at start: ${parts.join('; ')}.${tail}`;
}
