// Provider quarantine through the palette commands in a real VS Code (SPEC R-QUAR-1..3, R-UI-4): apply hides a
// provider's replies from search and moves the conversation's capture note under .quarantine/<id>/; release
// brings both back; a second release is refused. Commands get arguments instead of UI input.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { MemoryEngine } from '../../src/engine/engine';
import type { QuarantineApplyResult, QuarantineReleaseResult } from '../../src/engine/maintain/quarantine';
import { activated, userSettingsLoaded } from './api';
import { internals } from '../../src/engine/internals';

const PROVIDER = 'qtest-vendor';
const CONV = 'quarantine-int-conv';
const NOTE = 'semantic/quarantine-int-capture.md';

describe('Provider quarantine in VS Code', () => {
  let engine: MemoryEngine;
  let replyId: string;
  let userId: string;

  const hitIds = async (q: string) => (await engine.search(q, {}, 20)).map((h) => h.id);

  before(async () => {
    const api = await activated();
    await userSettingsLoaded();
    engine = await api.engine();
    const r = await engine.recordTurn({
      conversation: CONV, provider: PROVIDER, model: 'qtest-1',
      user: 'Where should the quokkaservice integration keep its nightly export files from now on?',
      assistant: 'Keep the quokkaservice exports in the narwhalbucket under a dated prefix per night.',
    });
    [userId, replyId] = r.ids as [string, string];
    await engine.flush(CONV);
    const abs = path.join(engine.vaultDir, ...NOTE.split('/'));
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, `---\nkind: domain\nsummary: Exports go to the narwhalbucket\norigin:\n  by: capture\n  provider: ${PROVIDER}\n  model: qtest-1\n  conversation: ${CONV}\n---\nExports go to the narwhalbucket.\n`);
    assert.ok(await internals(engine).vault.syncFile(NOTE), 'the capture note is indexed');
  });

  it('hides the provider\'s reply and capture note through Quarantine Provider Memory…, and Release Quarantine… brings them back', async () => {
    assert.ok((await hitIds('narwhalbucket')).includes(replyId), 'the reply is found before');
    assert.ok((await hitIds('narwhalbucket')).includes(`vt:${NOTE}`), 'the note is found before');
    const noteBytes = readFileSync(path.join(engine.vaultDir, ...NOTE.split('/')), 'utf8');
    assert.ok(engine.quarantineProviders().some((p) => p.provider === PROVIDER && p.recallable === 1));

    const applied = await vscode.commands.executeCommand<QuarantineApplyResult>('memory.quarantine.apply', { providers: [PROVIDER], confirmed: true });
    assert.ok(applied?.id, 'apply returns an id');
    assert.deepEqual(applied.counts, { raw: 1, facts: 0, summaries: 1, notes: 1, conversations: 1 });
    const hidden = await hitIds('narwhalbucket quokkaservice');
    assert.ok(!hidden.includes(replyId) && !hidden.includes(`vt:${NOTE}`) && !hidden.includes(`gs:${CONV}`), 'reply, note and summary are hidden');
    assert.ok(hidden.includes(userId), 'the user\'s own message is still found');
    assert.ok(!existsSync(path.join(engine.vaultDir, ...NOTE.split('/'))), 'the note left its folder');
    assert.ok(existsSync(path.join(engine.vaultDir, '.quarantine', applied.id, ...NOTE.split('/'))), 'and sits under .quarantine/<id>/');

    const repeat = await vscode.commands.executeCommand<QuarantineApplyResult>('memory.quarantine.apply', { providers: [PROVIDER], confirmed: true });
    assert.equal(repeat?.id, null);
    assert.equal(repeat?.message, 'nothing left to quarantine');

    const released = await vscode.commands.executeCommand<QuarantineReleaseResult>('memory.quarantine.release', applied.id);
    assert.equal(released?.id, applied.id);
    assert.deepEqual(released.restoredNotes.map((n) => n.to), [NOTE]);
    assert.deepEqual(released.missingNotes, []);
    assert.equal(readFileSync(path.join(engine.vaultDir, ...NOTE.split('/')), 'utf8'), noteBytes, 'the note is back unchanged');
    const back = await hitIds('narwhalbucket quokkaservice');
    assert.ok(back.includes(replyId) && back.includes(`vt:${NOTE}`), 'reply and note are found again');
    assert.equal(internals(engine).store.items.get(replyId)?.trust, 'derived');

    const twice = await vscode.commands.executeCommand('memory.quarantine.release', applied.id);
    assert.equal(twice, undefined, 'a second release is refused (reported, nothing returned)');
    assert.equal(engine.quarantineHistory().find((q) => q.id === applied.id)?.status, 'released');
    const audit = internals(engine).store.audit.list({}).filter((a) => a.action.startsWith('memory.quarantine') && (a.detail.id === applied.id));
    assert.deepEqual(audit.map((a) => a.action), ['memory.quarantine.apply', 'memory.quarantine.release']);
  });
});
