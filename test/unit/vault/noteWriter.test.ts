import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { moveNote, quarantineNote, restoreNote, writeNote } from '../../../src/engine/vault/noteWriter';
import { parseNote } from '../../../src/engine/vault/noteParser';
import { isMemoryError } from '../../../src/engine/errors';

const tempVault = () => fs.mkdtempSync(path.join(os.tmpdir(), 'vault-write-'));

describe('writeNote', () => {
  it('refuses paths outside the vault, hidden paths, logs/ and non-Markdown names without writing', async () => {
    const v = tempVault();
    for (const rel of ['../x.md', '.quarantine/q/x.md', 'semantic/x.txt', 'logs/2024-01-01.md', 'a\\..\\b.md']) {
      await assert.rejects(writeNote(v, rel, { body: 'x' }), (e) => isMemoryError(e, 'E_BAD_ID') || isMemoryError(e, 'E_BAD_INPUT'), rel);
    }
    assert.deepEqual(fs.readdirSync(v), []);
  });

  it('masks secrets in body and frontmatter before writing and keeps dates', async () => {
    const v = tempVault();
    const r = await writeNote(v, 'semantic/Bank.md', { frontmatter: { kind: 'user', summary: 'IBAN DE89 3704 0044 0532 0130 00' }, body: 'Pay to DE89370400440532013000 on 2024-05-01.\n' });
    const text = fs.readFileSync(r.path, 'utf8');
    assert.ok(!text.includes('3704'));
    assert.ok(text.includes('Pay to [IBAN] on 2024-05-01.'));
    assert.equal(parseNote(r.relPath, text).summary, 'IBAN [IBAN]');
    assert.deepEqual(r.masked, { count: 2, classes: ['iban'] });
  });

  it('creates folders, takes a -2 name instead of overwriting, and is a no-op for identical content', async () => {
    const v = tempVault();
    const a = await writeNote(v, 'projects/p 1/Plan ü.md', { frontmatter: { kind: 'project' }, body: 'one\n' });
    assert.equal(a.relPath, 'projects/p 1/Plan ü.md');
    const same = await writeNote(v, 'projects/p 1/Plan ü.md', { frontmatter: { kind: 'project' }, body: 'one\n' });
    assert.equal(same.written, false);
    const b = await writeNote(v, 'projects/p 1/Plan ü.md', { frontmatter: { kind: 'project' }, body: 'two\n' });
    assert.equal(b.relPath, 'projects/p 1/Plan ü-2.md');
    assert.equal(b.id, 'vt:projects/p 1/Plan ü-2.md');
    assert.ok(fs.readFileSync(a.path, 'utf8').includes('one'));
    const c = await writeNote(v, 'projects/p 1/Plan ü.md', { body: 'three\n' }, { overwrite: true });
    assert.equal(c.relPath, 'projects/p 1/Plan ü.md');
    assert.equal(fs.readFileSync(c.path, 'utf8'), 'three\n');
    assert.deepEqual(fs.readdirSync(path.join(v, 'projects', 'p 1')).filter((n) => n.endsWith('.tmp')), []);
  });
});

describe('moveNote', () => {
  it('moves a note into quarantine and back, restoring as -restored when the path was taken', async () => {
    const v = tempVault();
    await writeNote(v, 'semantic/Fact.md', { frontmatter: { origin: { by: 'capture' } }, body: 'old\n' });
    const q = await quarantineNote(v, 'semantic/Fact.md', 'q1');
    assert.equal(q.relPath, '.quarantine/q1/semantic/Fact.md');
    assert.equal(fs.existsSync(path.join(v, 'semantic', 'Fact.md')), false);
    await writeNote(v, 'semantic/Fact.md', { body: 'new\n' });
    const back = await restoreNote(v, q.relPath);
    assert.equal(back.relPath, 'semantic/Fact-restored.md');
    assert.ok(fs.readFileSync(back.path, 'utf8').includes('by: capture'));
    assert.equal(fs.readFileSync(path.join(v, 'semantic', 'Fact.md'), 'utf8'), 'new\n');
  });

  it('reports a missing source as not found and refuses paths leaving the vault', async () => {
    const v = tempVault();
    await assert.rejects(moveNote(v, 'semantic/none.md', 'semantic/x.md'), (e) => isMemoryError(e, 'E_NOT_FOUND'));
    await writeNote(v, 'semantic/a.md', { body: 'a' });
    await assert.rejects(moveNote(v, 'semantic/a.md', '../a.md'), (e) => isMemoryError(e, 'E_BAD_ID'));
    assert.throws(() => restoreNote(v, 'semantic/a.md'), (e) => isMemoryError(e, 'E_BAD_ID'));
  });
});
