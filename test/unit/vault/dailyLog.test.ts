import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { appendTurn, parseDailyLog, recentTurns, todayNotePath } from '../../../src/engine/vault/dailyLog';
import { isMemoryError } from '../../../src/engine/errors';

function tempVault(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'vault-log-'));
}

describe('daily logs', () => {
  describe('parseDailyLog splits only on exact role headers', () => {
    it('keeps ### headings inside a message', () => {
      const log = '# 2024-05-01\n\n### user\nWhat now?\n\n### assistant\nHere is a plan.\n\n### Summary\nDo A.\n\n### Schritt 1\nDo B.\n\n### user story\nAs a user…\n';
      const turns = parseDailyLog(log);
      assert.deepEqual(turns.map((t) => t.role), ['user', 'assistant']);
      assert.equal(turns[1].text, 'Here is a plan.\n\n### Summary\nDo A.\n\n### Schritt 1\nDo B.\n\n### user story\nAs a user…');
    });

    it('does not split on headers that are not at the start of a line or have other text', () => {
      const log = '### user\nsee `### assistant` and  ### user here\n#### user\n### users\n';
      const turns = parseDailyLog(log);
      assert.equal(turns.length, 1);
      assert.equal(turns[0].text, 'see `### assistant` and  ### user here\n#### user\n### users');
    });

    it('accepts trailing spaces and CRLF on a header line', () => {
      const turns = parseDailyLog('### user  \r\nhi\r\n\r\n### assistant\r\nho\r\n');
      assert.deepEqual(turns.map((t) => [t.role, t.text]), [['user', 'hi'], ['assistant', 'ho']]);
    });

    it('ignores text before the first header and returns nothing for an empty file', () => {
      assert.deepEqual(parseDailyLog(''), []);
      assert.deepEqual(parseDailyLog('# 2024-05-01\n\nnotes without turns\n'), []);
    });
  });

  describe('appendTurn and round trips', () => {
    it('round-trips a message that contains a line which is exactly ### user', async () => {
      const vault = tempVault();
      const assistant = 'Format:\n### user\nquestion\n### assistant\nanswer\n\\### user stays escaped once';
      await appendTurn(vault, { at: Date.UTC(2024, 4, 1, 10), timeZone: 'UTC', user: 'show me the format', assistant, conversation: 'c 1' });
      const text = fs.readFileSync(path.join(vault, 'logs', '2024-05-01.md'), 'utf8');
      const turns = parseDailyLog(text);
      assert.equal(turns.length, 2);
      assert.equal(turns[0].text, 'show me the format');
      assert.equal(turns[1].text, assistant);
      assert.equal(turns[1].conversation, 'c 1');
      assert.equal(turns[1].at, '2024-05-01T10:00:00.000Z');
    });

    it('writes to the local day of the given time zone and appends, never rewrites', async () => {
      const vault = tempVault();
      // 23:30 UTC on 1 May is already 2 May in Berlin (UTC+2).
      const at = Date.UTC(2024, 4, 1, 23, 30);
      const r1 = await appendTurn(vault, { at, timeZone: 'Europe/Berlin', user: 'a', assistant: 'b' });
      assert.equal(r1.relPath, 'logs/2024-05-02.md');
      const before = fs.readFileSync(r1.path, 'utf8');
      assert.ok(before.startsWith('# 2024-05-02\n'));
      await appendTurn(vault, { at: at + 60_000, timeZone: 'Europe/Berlin', user: 'c', assistant: 'd' });
      const after = fs.readFileSync(r1.path, 'utf8');
      assert.ok(after.startsWith(before));
      assert.deepEqual(parseDailyLog(after).map((t) => t.text), ['a', 'b', 'c', 'd']);
    });

    it('refuses a non-text message, a bad date or an unknown time zone', async () => {
      const vault = tempVault();
      await assert.rejects(appendTurn(vault, { at: 0, timeZone: 'UTC', user: 5 as unknown as string, assistant: 'x' }), (e) => isMemoryError(e, 'E_BAD_INPUT'));
      await assert.rejects(appendTurn(vault, { at: NaN, timeZone: 'UTC', user: 'u', assistant: 'x' }), (e) => isMemoryError(e, 'E_BAD_INPUT'));
      await assert.rejects(appendTurn(vault, { at: 0, timeZone: 'Mars/Olympus', user: 'u', assistant: 'x' }), (e) => isMemoryError(e, 'E_BAD_INPUT'));
      assert.equal(fs.existsSync(path.join(vault, 'logs')), false);
    });
  });

  describe('recentTurns', () => {
    it('reads back across days, newest last, limited and filtered by conversation', async () => {
      const vault = tempVault();
      const day = 86_400_000;
      const t0 = Date.UTC(2024, 0, 30, 12);
      await appendTurn(vault, { at: t0, timeZone: 'UTC', user: 'u1', assistant: 'a1', conversation: 'x' });
      await appendTurn(vault, { at: t0 + day, timeZone: 'UTC', user: 'u2', assistant: 'a2', conversation: 'y' });
      await appendTurn(vault, { at: t0 + 2 * day, timeZone: 'UTC', user: 'u3', assistant: 'a3', conversation: 'x' });
      const last3 = await recentTurns(vault, { limit: 3 });
      assert.deepEqual(last3.map((t) => t.text), ['a2', 'u3', 'a3']);
      const onlyX = await recentTurns(vault, { limit: 10, conversation: 'x' });
      assert.deepEqual(onlyX.map((t) => t.text), ['u1', 'a1', 'u3', 'a3']);
      assert.deepEqual(await recentTurns(tempVault(), { limit: 5 }), []);
    });
  });

  describe('todayNotePath', () => {
    it('creates today\'s file with a title line once and keeps it afterwards', async () => {
      const vault = tempVault();
      const p = await todayNotePath(vault, Date.UTC(2024, 2, 3, 8), 'UTC');
      assert.equal(p, path.join(vault, 'logs', '2024-03-03.md'));
      assert.equal(fs.readFileSync(p, 'utf8'), '# 2024-03-03\n\n');
      fs.appendFileSync(p, 'mine\n');
      await todayNotePath(vault, Date.UTC(2024, 2, 3, 9), 'UTC');
      assert.equal(fs.readFileSync(p, 'utf8'), '# 2024-03-03\n\nmine\n');
    });
  });
});
