import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { localDay, noteId, projectDir, resolveNoteId, scopeOfPath } from '../../../src/engine/vault/vaultLayout';
import { isMemoryError } from '../../../src/engine/errors';

const badId = (e: unknown) => isMemoryError(e, 'E_BAD_ID');

describe('vaultLayout', () => {
  const vault = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-layout-'));
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-outside-'));

  it('refuses ids with .., absolute paths, NUL, backslashes, empty or dot segments and wrong prefixes', () => {
    for (const id of ['vt:../x.md', 'vt:semantic/../../x.md', 'vt:/etc/passwd', 'vt:C:/x.md', 'vt:a\0b.md',
      'vt:semantic\\..\\..\\x.md', 'vt:..\\x.md', 'vt:a//b.md', 'vt:./a.md', 'vt:', 'rw:abc', 'semantic/a.md']) {
      assert.throws(() => resolveNoteId(vault, id), badId, JSON.stringify(id));
    }
  });

  it('refuses hidden folders unless asked, so quarantined notes stay closed', () => {
    assert.throws(() => resolveNoteId(vault, 'vt:.quarantine/q1/a.md'), badId);
    assert.equal(resolveNoteId(vault, 'vt:.quarantine/q1/a.md', { allowHidden: true }), path.join(vault, '.quarantine', 'q1', 'a.md'));
  });

  it('resolves names with spaces and non-ASCII inside the vault', () => {
    assert.equal(resolveNoteId(vault, 'vt:semantic/Über mich – Café.md'), path.join(vault, 'semantic', 'Über mich – Café.md'));
  });

  it('refuses a symlink, or a symlinked folder, that points out of the vault', () => {
    fs.writeFileSync(path.join(outside, 'secret.md'), 'outside');
    fs.mkdirSync(path.join(vault, 'semantic'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(vault, 'semantic', 'link.md'));
    fs.symlinkSync(outside, path.join(vault, 'escape'));
    assert.throws(() => resolveNoteId(vault, 'vt:semantic/link.md'), badId);
    assert.throws(() => resolveNoteId(vault, 'vt:escape/secret.md'), badId);
    assert.throws(() => resolveNoteId(vault, 'vt:escape/new.md'), badId);
  });

  it('builds ids from OS paths and derives scope from folders', () => {
    assert.equal(noteId(['projects', 'p1', 'a b.md'].join(path.sep)), 'vt:projects/p1/a b.md');
    assert.deepEqual(scopeOfPath('projects/p1/x/a.md'), { project: 'p1' });
    assert.deepEqual(scopeOfPath('project-types/web/a.md'), { projectType: 'web' });
    assert.deepEqual(scopeOfPath('projects/a.md'), {});
    assert.deepEqual(scopeOfPath('semantic/a.md'), {});
    assert.throws(() => projectDir('../x'), badId);
  });

  it('computes the local day in a time zone', () => {
    assert.equal(localDay(Date.UTC(2024, 11, 31, 23, 30), 'Europe/Berlin'), '2025-01-01');
    assert.equal(localDay(Date.UTC(2024, 11, 31, 23, 30), 'UTC'), '2024-12-31');
    assert.throws(() => localDay(0, 'Nowhere/Zone'), (e) => isMemoryError(e, 'E_BAD_INPUT'));
  });
});
