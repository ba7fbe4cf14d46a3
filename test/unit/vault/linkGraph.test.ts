import assert from 'node:assert/strict';
import { LinkGraph } from '../../../src/engine/vault/linkGraph';

describe('LinkGraph', () => {
  function graph() {
    const g = new LinkGraph();
    g.setNote('vt:semantic/Coffee.md', []);
    g.setNote('vt:procedural/Style Guide.md', []);
    g.setNote('vt:projects/p1/Plan.md', []);
    g.setNote('vt:projects/p2/Plan.md', []);
    return g;
  }

  it('resolves by basename case-insensitively, by path with or without .md, and by path suffix', () => {
    const g = graph();
    g.setNote('vt:semantic/Me.md', ['coffee', 'procedural/Style Guide.md', 'p1/plan', 'semantic/Coffee']);
    assert.deepEqual(g.outgoing('vt:semantic/Me.md'), ['vt:semantic/Coffee.md', 'vt:procedural/Style Guide.md', 'vt:projects/p1/Plan.md']);
    assert.deepEqual(g.backlinks('vt:semantic/Coffee.md'), ['vt:semantic/Me.md']);
  });

  it('reports broken links and repairs them when the target appears', () => {
    const g = graph();
    g.setNote('vt:semantic/Me.md', ['Tea', 'Coffee']);
    assert.deepEqual(g.broken(), [{ from: 'vt:semantic/Me.md', target: 'Tea' }]);
    g.setNote('vt:semantic/Tea.md', []);
    assert.deepEqual(g.broken(), []);
    assert.deepEqual(g.backlinks('vt:semantic/Tea.md'), ['vt:semantic/Me.md']);
    g.removeNote('vt:semantic/Tea.md');
    assert.deepEqual(g.broken(), [{ from: 'vt:semantic/Me.md', target: 'Tea' }]);
  });

  it('picks the same folder first, then the shortest path, then path order, and reports ambiguity', () => {
    const g = graph();
    g.setNote('vt:projects/p2/Notes.md', ['Plan']);
    g.setNote('vt:semantic/Index.md', ['Plan']);
    assert.deepEqual(g.outgoing('vt:projects/p2/Notes.md'), ['vt:projects/p2/Plan.md']);
    assert.deepEqual(g.outgoing('vt:semantic/Index.md'), ['vt:projects/p1/Plan.md']);
    assert.equal(g.ambiguous().length, 2);
    assert.deepEqual(g.ambiguous()[1].candidates, ['vt:projects/p1/Plan.md', 'vt:projects/p2/Plan.md']);
  });

  it('updates backlinks when a note changes or is removed', () => {
    const g = graph();
    g.setNote('vt:semantic/A.md', ['Coffee']);
    g.setNote('vt:semantic/B.md', [{ target: 'Coffee' }]);
    assert.deepEqual(g.backlinks('vt:semantic/Coffee.md'), ['vt:semantic/A.md', 'vt:semantic/B.md']);
    g.setNote('vt:semantic/A.md', []);
    g.removeNote('vt:semantic/B.md');
    assert.deepEqual(g.backlinks('vt:semantic/Coffee.md'), []);
    assert.deepEqual(g.outgoing('vt:unknown.md'), []);
  });

  it('resolves as before after removing notes, including one whose path differs from another only in case', () => {
    const g = graph();
    g.setNote('vt:semantic/coffee.md', []);
    g.setNote('vt:semantic/Me.md', ['semantic/coffee', 'Plan']);
    assert.equal(g.resolve('semantic/coffee').id, 'vt:semantic/Coffee.md');
    g.removeNote('vt:semantic/Coffee.md');
    assert.equal(g.resolve('semantic/coffee').id, 'vt:semantic/coffee.md');
    g.removeNote('vt:semantic/coffee.md');
    assert.deepEqual(g.resolve('coffee'), { candidates: [] });
    g.removeNote('vt:projects/p1/Plan.md');
    assert.deepEqual(g.resolve('Plan'), { id: 'vt:projects/p2/Plan.md', candidates: ['vt:projects/p2/Plan.md'] });
    assert.deepEqual(g.outgoing('vt:semantic/Me.md'), ['vt:projects/p2/Plan.md']);
  });

  it('lists the links a note\'s arrival or departure can re-resolve: those ending in its basename', () => {
    const g = graph();
    g.setNote('vt:semantic/A.md', ['plan', './projects/p1/Plan.md', 'Coffee', 'plan']);
    g.setNote('vt:semantic/B.md', ['other/plan', 'Style Guide']);
    assert.deepEqual(g.linksNear(['vt:projects/p3/PLAN.md']), [
      { from: 'vt:semantic/A.md', target: 'plan' },
      { from: 'vt:semantic/A.md', target: './projects/p1/Plan.md' },
      { from: 'vt:semantic/B.md', target: 'other/plan' },
    ]);
    g.setNote('vt:semantic/A.md', ['Coffee']);
    g.removeNote('vt:semantic/B.md');
    assert.deepEqual(g.linksNear(['vt:projects/p3/plan.md']), []);
    assert.deepEqual(g.linksNear(['vt:x/coffee.md']), [{ from: 'vt:semantic/A.md', target: 'Coffee' }]);
  });
});
