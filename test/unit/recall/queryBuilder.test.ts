import { strict as assert } from 'node:assert';
import { buildQuery, QUERY_MAX_CHARS } from '../../../src/engine/recall/queryBuilder';

describe('queryBuilder (R-RECALL-1)', () => {
  it('puts the current message first, then the previous different user message, title and task', () => {
    const q = buildQuery({ message: 'why does it time out?', previousUserMessages: ['set up httpx', 'why does it time out?'], title: 'HTTP client', task: 'fix flaky test' });
    assert.equal(q, 'why does it time out?\nset up httpx\nHTTP client\nfix flaky test');
  });

  it('uses the last user message when the current message is empty', () => {
    const q = buildQuery({ message: '   ', previousUserMessages: ['first question', 'second question'] });
    assert.equal(q, 'second question\nfirst question');
  });

  it('ignores placeholder titles', () => {
    for (const title of ['New Chat', 'Untitled', 'untitled-3', 'New conversation']) {
      assert.equal(buildQuery({ message: 'hello there', title }), 'hello there');
    }
  });

  it('caps the previous message at 400 chars, title at 120, task at 400 and the whole at 1,200', () => {
    const long = (w: string) => Array.from({ length: 400 }, () => w).join(' ');
    const q = buildQuery({ message: long('now'), previousUserMessages: [long('prev')], title: long('title'), task: long('task') });
    assert.ok(q.length <= QUERY_MAX_CHARS);
    const parts = buildQuery({ message: 'm', previousUserMessages: [long('prev')], title: long('title'), task: long('task') }).split('\n');
    assert.ok(parts[1]!.length <= 400 && parts[2]!.length <= 120 && parts[3]!.length <= 400);
    assert.ok(!parts[1]!.endsWith(' pre'), 'cut at a word boundary');
  });

  it('does not repeat a part already contained in an earlier one', () => {
    const q = buildQuery({ message: 'Fix the httpx timeout in the upload job', title: 'httpx timeout', task: 'the upload job' });
    assert.equal(q, 'Fix the httpx timeout in the upload job');
  });

  it('returns an empty query when there is nothing to search for', () => {
    assert.equal(buildQuery({ message: '', previousUserMessages: [] }), '');
  });
});
