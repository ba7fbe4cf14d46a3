// The turn registry binds tool calls to the @memory turn that made them, by chat session: VS Code hands a
// tool a copy of the request's token, so identity cannot be the key.
import * as assert from 'node:assert/strict';
import { TurnRegistry, sessionKeyOf } from '../../../src/vscode/chat/turnRegistry';

const token = (path: string) => ({ sessionResource: { scheme: 'vscode-chat-session', authority: 'local', path } });

describe('TurnRegistry', () => {
  it('finds the participant turn from a copy of the request token', () => {
    const reg = new TurnRegistry();
    const t = reg.begin(token('/a'), { conversation: 'chat-1', project: 'shop', local: true });
    const found = reg.lookup(JSON.parse(JSON.stringify(token('/a'))));
    assert.equal(found?.conversation, 'chat-1');
    assert.equal(found?.turn, t.scope.turn);
  });

  it('gives every user message a fresh budget key', () => {
    const reg = new TurnRegistry();
    const a = reg.begin(token('/a'), { conversation: 'chat-1', local: false });
    a.end();
    const b = reg.begin(token('/a'), { conversation: 'chat-1', local: false });
    assert.notEqual(a.scope.turn, b.scope.turn);
  });

  it('forgets a turn when it ends, and never matches another session or no token', () => {
    const reg = new TurnRegistry();
    const t = reg.begin(token('/a'), { conversation: 'chat-1', local: false });
    assert.equal(reg.lookup(token('/b')), undefined);
    assert.equal(reg.lookup(undefined), undefined);
    t.end();
    assert.equal(reg.lookup(token('/a')), undefined);
    assert.equal(reg.size, 0);
  });

  it('keys revived Uris, raw components and string ids alike, and nothing without a session', () => {
    assert.equal(sessionKeyOf(token('/x')), 'vscode-chat-session://local/x');
    assert.equal(sessionKeyOf({ sessionId: 's-1' }), 's-1');
    assert.equal(sessionKeyOf({}), undefined);
    assert.equal(sessionKeyOf('token'), undefined);
  });
});
