import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { capLongterm, dropEmptySections, readLongterm } from '../../../src/engine/vault/longterm';

describe('long-term file', () => {
  it('creates a short template when missing and sends no template comments', async () => {
    const v = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-lt-'));
    const r = await readLongterm(v);
    assert.equal(r.created, true);
    assert.ok(fs.readFileSync(path.join(v, 'longterm.md'), 'utf8').includes('<!--'));
    assert.equal(r.text, '', 'the untouched template says nothing');
    const again = await readLongterm(v);
    assert.equal(again.created, false);
  });

  it('caps at whole lines and never cuts a line in half', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `- fact number ${i} is kept whole`);
    const { text, truncated } = capLongterm(lines.join('\n'), 1200);
    assert.equal(truncated, true);
    assert.ok(text.length <= 1200);
    for (const l of text.split('\n')) assert.ok(lines.includes(l), l);
  });

  it('cuts a single over-long first line at a word and marks it', () => {
    const { text } = capLongterm('word '.repeat(400), 100);
    assert.ok(text.length <= 100 && text.endsWith('…'));
  });

  it('drops frontmatter and keeps the user\'s own file untouched', async () => {
    const v = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-lt-'));
    fs.writeFileSync(path.join(v, 'longterm.md'), '---\npinned: true\n---\nI am Ana.\n');
    const r = await readLongterm(v);
    assert.equal(r.text, 'I am Ana.');
    assert.equal(fs.readFileSync(path.join(v, 'longterm.md'), 'utf8'), '---\npinned: true\n---\nI am Ana.\n');
  });

  it('never counts template text or empty sections as content', () => {
    assert.equal(capLongterm('# Long-term memory\n\n## Preferences\n\n## Projects\n<!-- add some -->\n').text, '');
    assert.equal(capLongterm('# Long-term memory\n\n## About me\nI am Ana.\n\n## Projects\n').text, '## About me\nI am Ana.');
    // A heading keeps its place when a sub-section under it has text.
    assert.equal(dropEmptySections('# Work\n## Tools\n- pnpm\n## Empty'), '# Work\n## Tools\n- pnpm');
    // A user's own title other than the template's is kept with its text.
    assert.equal(dropEmptySections('# Ana\nPrefers tabs.'), '# Ana\nPrefers tabs.');
    // Inside a code fence a "# comment" is text, not a heading.
    assert.equal(dropEmptySections('## Shell\n```\n# install\n```'), '## Shell\n```\n# install\n```');
  });
});
