// The Vault tree's shape as data (src/vscode/views/vaultModel.ts, no `vscode` import): folders from
// note paths in SPEC order, notes by summary, hidden folders left out, logs grouped by month.
import * as assert from 'node:assert/strict';
import { buildVaultTree, walkVaultTree, type NoteRow, type VaultNode } from '../../../src/vscode/views/vaultModel';

function note(path: string, summary = '', extra: Partial<NoteRow> = {}): NoteRow {
  return { id: `vt:${path}`, path, summary, kind: 'reference', trust: 'owner', tags: [], pinned: false, ...extra };
}
const labels = (nodes: readonly VaultNode[]) => nodes.map((n) => n.label);
const child = (nodes: readonly VaultNode[], label: string) => {
  const n = nodes.find((x) => x.label === label);
  assert.ok(n && 'children' in n, `${label} is a folder`);
  return n.children;
};

describe('The Vault tree model', () => {
  it('puts the long-term file first, the standard folders in SPEC order, other folders A to Z, then logs', () => {
    const roots = buildVaultTree([
      note('zeta/a.md'), note('project-types/ext/b.md'), note('projects/shop/c.md'), note('procedural/d.md'),
      note('semantic/e.md'), note('alpha/f.md'),
    ], ['2026-11-02'], true);
    assert.deepEqual(labels(roots), ['Long-term memory', 'semantic', 'procedural', 'projects', 'project-types', 'alpha', 'zeta', 'logs']);
    assert.deepEqual(labels(child(roots, 'projects')), ['shop']);
    assert.deepEqual(labels(child(child(roots, 'project-types'), 'ext')), ['b']);
  });

  it('labels notes by summary (file name when empty) and sorts them by label', () => {
    const roots = buildVaultTree([note('semantic/b.md', 'Beta note'), note('semantic/a.md', 'alpha note'), note('semantic/c.md')], [], false);
    assert.deepEqual(labels(child(roots, 'semantic')), ['alpha note', 'Beta note', 'c']);
  });

  it('never shows hidden folders, the long-term file or logs as notes', () => {
    const roots = buildVaultTree([note('.quarantine/q1/semantic/a.md', 'Q'), note('.obsidian/x.md'), note('longterm.md'), note('logs/2026-11-02.md'), note('semantic/ok.md', 'OK')], [], false);
    const all = [...walkVaultTree(roots)];
    assert.deepEqual(all.filter((n) => n.type === 'note').map((n) => n.id), ['vt:semantic/ok.md']);
    assert.ok(!all.some((n) => n.label.startsWith('.')));
  });

  it('groups daily logs by month, newest first, with the newest month marked', () => {
    const roots = buildVaultTree([], ['2026-10-31', '2026-11-02', '2026-11-01', '2026-11-02'], false);
    assert.deepEqual(labels(roots), ['logs']);
    const months = child(roots, 'logs');
    assert.deepEqual(labels(months), ['2026-11', '2026-10']);
    assert.deepEqual(months.map((m) => m.type === 'month' && m.newest), [true, false]);
    assert.deepEqual(labels(child(months, '2026-11')), ['2026-11-02', '2026-11-01']);
    const day = child(months, '2026-11')[0];
    assert.equal(day.relPath, 'logs/2026-11-02.md');
  });

  it('is empty for an empty vault without a long-term file', () => {
    assert.deepEqual(buildVaultTree([], [], false), []);
  });
});
