// Helpers for integration tests: wait for an event (never sleep), and ask the runner for a
// screenshot at a named moment.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

type Event<T> = (listener: (e: T) => void) => { dispose(): void };

/** Resolves with the first event that satisfies `accept`, or rejects after `ms` naming `what`. */
export function waitForEvent<T>(event: Event<T>, what: string, ms = 20_000, accept: (e: T) => boolean = () => true): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => { sub.dispose(); reject(new Error(`timed out after ${ms} ms waiting for ${what}`)); }, ms);
    const sub = event((e) => {
      if (!accept(e)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(e);
    });
  });
}

/**
 * Asks the runner (test/tools/runIntegration.mjs) for a screenshot of the workbench and waits until
 * the file exists. The request travels as a console line the runner recognises. Without a runner
 * (e.g. under another harness) it resolves at once.
 */
export async function requestScreenshot(name: string, ms = 15_000): Promise<string | undefined> {
  const dir = process.env.MEMORY_TEST_SCREENSHOT_DIR;
  if (!dir) return undefined;
  const file = join(dir, `${name}.png`);
  console.log(`[screenshot] ${name}`);
  const deadline = Date.now() + ms;
  // Polling a file (100 ms) is the only signal the runner can send back into the extension host.
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`screenshot ${name} not written within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return file;
}

/**
 * Resolves once `check` returns a value other than undefined/false, re-checking after each event.
 * Subscribes before the first check, so an event between check and subscription is not missed.
 */
export function until<T>(event: Event<unknown>, check: () => T | undefined | false, what: string, ms = 20_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const finish = (v: T) => { done = true; clearTimeout(timer); sub.dispose(); resolve(v); };
    const sub = event(() => {
      if (done) return;
      const v = check();
      if (v !== undefined && v !== false) finish(v);
    });
    const timer = setTimeout(() => { done = true; sub.dispose(); reject(new Error(`timed out after ${ms} ms waiting for ${what}`)); }, ms);
    const first = check();
    if (first !== undefined && first !== false) finish(first);
  });
}

/**
 * The dashboard host's response to request `id`, taken from the posted message itself: the host posts
 * concurrently (a `changed` re-render asks for the overview while an action is answered), so its
 * `lastMessage` may already be a later message when the event for this one fires.
 */
export function dashboardResponse<T>(panel: { onDidPost: Event<unknown> }, id: number, what: string, ms = 30_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => { sub.dispose(); reject(new Error(`timed out after ${ms} ms waiting for ${what}`)); }, ms);
    const sub = panel.onDidPost((m) => {
      const r = m as { type?: string; id?: number } | undefined;
      if (r?.type === 'response' && r.id === id) { clearTimeout(timer); sub.dispose(); resolve(m as T); }
    });
  });
}
