// Memory: Load Document… in the real VS Code: a Markdown runbook becomes pinned sections the memory
// can find; loading it again only touches what changed.
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activated, userSettingsLoaded } from './api';

interface LoadResult { added: number; updated: number; unchanged: number; removed: number; ids: string[] }

describe('Memory: Load Document…', () => {
  it('loads a runbook as sections that search finds, and a second load changes only what changed', async () => {
    const api = await activated();
    await userSettingsLoaded();
    const dir = mkdtempSync(path.join(tmpdir(), 'memory doc '));
    const file = path.join(dir, 'runbook.md');
    writeFileSync(file, '# Payments runbook\n\n## Deploy\nUse the blue-green pipeline with canary weights 5/25/100.\n\n## Rollback\nTrigger the zanzibar-rollback job in the ops console.\n');
    const first = await vscode.commands.executeCommand<LoadResult>('memory.loadDocument', vscode.Uri.file(file));
    assert.ok(first, 'the command returns its counts');
    assert.equal(first.added, 3);
    const engine = await api.engine();
    const hits = await engine.search('zanzibar rollback job', { project: api.project().project });
    assert.ok(hits.some((h) => first.ids.includes(h.id)), 'a section is found by its words');

    writeFileSync(file, '# Payments runbook\n\n## Deploy\nUse the blue-green pipeline with canary weights 10/50/100.\n\n## Rollback\nTrigger the zanzibar-rollback job in the ops console.\n');
    const second = await vscode.commands.executeCommand<LoadResult>('memory.loadDocument', file);
    assert.equal(second.added, 0);
    assert.equal(second.updated, 1, 'only the changed section is updated');
    assert.equal(second.unchanged, 2);
  });
});
