// Issue #15 point 3: capture writes personal notes unless the project proposes project notes — then the note
// lands in the project vault as an uncommitted file (real git, a fake OpenAI-compatible model server).
import assert from 'node:assert/strict';
import { OpenAiBackgroundModel } from '../../../src/engine/model/openaiClient';
import { projectIdForFolder } from '../../../src/hooks/projectId';
import { createTestEngine, type TestEngine } from '../engine/builders';
import { FakeOpenAiServer, sseOf, textChunk, type Reply } from '../model/fakeOpenAiServer';
import { git, makeRepos, type Repos } from './gitFixture';

const USER = 'For this repository the payments service always deploys through the blue-green pipeline, remember that.';
const ASSISTANT = 'Understood: payments deploys blue-green here, with a manual approval before the production switch.';

function notesReply(notes: unknown[]): Reply {
  const text = JSON.stringify({ notes });
  return { sse: sseOf([textChunk(text, 'stop')]) };
}

describe('capture proposes project notes only when asked (issue #15)', function () {
  this.timeout(60_000);
  let server: FakeOpenAiServer;
  let repos: Repos;
  let t: TestEngine;
  let repo: string;
  let project: string;

  before(async () => {
    server = await FakeOpenAiServer.start(() => notesReply([{ kind: 'project', summary: 'The payments service deploys through a blue-green pipeline.', body: 'Manual approval before the switch.' }]));
  });
  after(async () => { await server.close(); });
  beforeEach(async () => {
    repos = makeRepos();
    repo = repos.clone('alice');
    project = projectIdForFolder(repo);
    t = await createTestEngine();
  });
  afterEach(async () => { await t.cleanup(); repos.cleanup(); });

  const capture = (conversation: string) => t.engine.capture(
    { conversation, user: USER, assistant: ASSISTANT, entryPath: 'participant', userTrust: 'owner', project },
    { model: new OpenAiBackgroundModel({ baseUrl: server.baseUrl, model: 'qwen-test', name: 'Ollama', timeoutMs: 5000 }) },
  );

  it('personal by default; into .memory/ (uncommitted, never committed) with proposeNotes', async () => {
    await t.engine.project.attach({ workspaceRoot: repo, projectId: project, watch: false });
    const r1 = await capture('c1');
    assert.equal(r1.outcome, 'extracted');
    assert.ok(r1.created.every((id) => id.startsWith('vt:')), r1.created.join());
    assert.equal(t.engine.project.notes().length, 0);

    await t.engine.project.attach({ workspaceRoot: repo, projectId: project, watch: false, proposeNotes: true });
    const r2 = await capture('c2');
    const prefix = t.engine.project.info()!.idPrefix;
    assert.ok(r2.created.length > 0 && r2.created.every((id) => id.startsWith(prefix)), r2.created.join());
    const [n] = t.engine.project.notes();
    assert.equal(n!.uncommitted, true);
    assert.equal(n!.trust, 'owner');
    assert.match(git(repo, 'status', '--porcelain'), /\?\? \.memory\//);
    assert.equal(git(repo, 'log', '--oneline').trim().split('\n').length, 1, 'nothing committed');
  });
});
