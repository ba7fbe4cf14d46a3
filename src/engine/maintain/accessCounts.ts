// Access counts (salience input, R-MAINT-2): ids returned by recall / search / expand, written in one
// small transaction at most every ACCESS_FLUSH_MS — never on the turn's critical path. The engine's
// close and a consolidation flush them first.
import { errorCode } from '../errors';
import type { Clock, Logger } from '../host';
import type { Store } from '../store/store';

/** Access counts are written at most this often (ms): a handful of ids per transaction, off the turn. */
const ACCESS_FLUSH_MS = 5_000;
/** …or at once when this many are queued (a burst of searches). */
const ACCESS_FLUSH_MAX = 500;

export class AccessCounter {
  private queue: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly store: Store, private readonly clock: Clock, private readonly logger: Logger) {}

  /** Queues ids that were just read. */
  note(ids: readonly string[]): void {
    if (!ids.length || this.stopped) return;
    this.queue.push(...ids);
    if (this.queue.length >= ACCESS_FLUSH_MAX) { void this.flush(); return; }
    if (this.timer) return;
    this.timer = setTimeout(() => { this.timer = undefined; void this.flush(); }, ACCESS_FLUSH_MS);
    this.timer.unref?.();
  }

  /** Writes the queued counts now (one transaction). Never throws: a lost count only lowers salience a little. */
  async flush(): Promise<void> {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    const ids = this.queue;
    if (!ids.length) return;
    this.queue = [];
    try {
      const at = this.clock.now();
      await this.store.transaction((tx) => tx.items.touchAccess(ids, at));
    } catch (e) {
      this.logger.warn('access.flush_failed', { items: ids.length, error: errorCode(e) });
    }
  }

  /** No more queueing (the engine is closing); `flush` still writes what is queued. */
  stop(): void { this.stopped = true; }
}
