import assert from 'node:assert/strict';
import { CallBudget } from '../../../src/engine/recall/callBudget';

describe('CallBudget', () => {
  it('allows three drill-down calls per chat request token and refuses the fourth with a sentence', () => {
    const b = new CallBudget({ maxCalls: 3 });
    const token = {};
    assert.deepEqual(b.take(token), { ok: true, remaining: 2 });
    assert.deepEqual(b.take(token), { ok: true, remaining: 1 });
    assert.deepEqual(b.take(token), { ok: true, remaining: 0 });
    const over = b.take(token);
    assert.equal(over.ok, false);
    assert.match((over as { message: string }).message, /^Memory drill-down limit reached: at most 3 memory_search\/memory_expand calls per user message\./);
  });

  it('starts afresh with the next user message (a new token)', () => {
    const b = new CallBudget({ maxCalls: 3 });
    const first = {};
    for (let i = 0; i < 3; i++) b.take(first);
    assert.equal(b.take(first).ok, false);
    assert.deepEqual(b.take({}), { ok: true, remaining: 2 });
  });

  it('gives callers without a token a time window per caller id', () => {
    let now = 1_000_000;
    const b = new CallBudget({ maxCalls: 3, windowMs: 60_000, now: () => now });
    for (let i = 0; i < 3; i++) assert.equal(b.take('ext.a').ok, true);
    const over = b.take('ext.a');
    assert.equal(over.ok, false);
    assert.match((over as { message: string }).message, /per 60 s for callers outside a chat request.*try again in 60 s/);
    assert.equal(b.take('ext.b').ok, true, 'another caller has its own budget');
    now += 59_000;
    assert.equal(b.take('ext.a').ok, false);
    now += 1_000;
    assert.deepEqual(b.take('ext.a'), { ok: true, remaining: 2 });
  });

  it('applies a changed limit at once', () => {
    let max = 1;
    const b = new CallBudget({ maxCalls: () => max });
    const t = {};
    assert.equal(b.take(t).ok, true);
    assert.equal(b.take(t).ok, false);
    max = 3;
    assert.equal(b.take(t).ok, true);
  });

  it('keeps a bounded number of caller windows', () => {
    let now = 0;
    const b = new CallBudget({ maxCalls: 1, windowMs: 1000, now: () => now });
    for (let i = 0; i < 5000; i++) b.take(`caller-${i}`);
    now += 10;
    assert.equal(b.take('caller-4999').ok, false, 'the newest window is kept');
    assert.ok((b as unknown as { byCaller: Map<string, unknown> }).byCaller.size <= 1001);
  });
});
