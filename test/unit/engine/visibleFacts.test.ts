import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeSkips } from '../../../src/engine/maintain/health';
import { createTestEngine, turn, type TestEngine } from './builders';
import { internals } from '../../../src/engine/internals';

describe('visible facts (issue #13 point 9)', () => {
  let t: TestEngine;
  beforeEach(async () => { t = await createTestEngine(); });
  afterEach(async () => { await t.cleanup(); });

  it('announces a store repaired at open once, never again (also not after a reopen)', async () => {
    await t.engine.recordTurn(turn());
    assert.equal(await t.engine.takeRecoveryNotice(), null, 'a healthy store says nothing');
    await t.engine.close();
    fs.writeFileSync(path.join(t.storeDir, 'memory.db'), Buffer.from('this is not a SQLite file at all '.repeat(200)));
    const e = await t.reopen();
    assert.ok(internals(e).store.openReport.snapshotMovedAside);
    const notice = await e.takeRecoveryNotice();
    assert.match(notice ?? '', /^Memory repaired its store at start: its database snapshot was unreadable and was moved aside to .*memory\.db\.corrupt-.*; it was rebuilt from the journal and the vault\./);
    assert.match(notice!, /Rebuild Index/);
    assert.equal(await e.takeRecoveryNotice(), null, 'told once');
    // The journal was rebuilt into a fresh snapshot at close; the next open is clean and silent.
    const again = await t.reopen();
    assert.equal(await again.takeRecoveryNotice(), null);
  });

  it('words the save filter\'s skip counts for /status, Show Status and the dashboard', async () => {
    assert.equal(describeSkips({}), 'none');
    assert.equal(describeSkips({ dedup: 2, length_floor: 9, echo: 0 }), '11 (length_floor 9, dedup 2)');
    await t.engine.recordTurn(turn({ user: 'too short' }));
    assert.equal(describeSkips(t.engine.status().skips), '1 (length_floor 1)');
  });
});
