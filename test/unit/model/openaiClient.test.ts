import assert from 'node:assert/strict';
import { isMemoryError, MemoryError } from '../../../src/engine/errors';
import { selectBackgroundModel, type BackgroundModel } from '../../../src/engine/model/backgroundModel';
import { estimateTokens, isLoopback, OpenAiBackgroundModel, OpenAiClient, SseParser, type ChatEvent } from '../../../src/engine/model/openaiClient';
import { chatJson, FakeOpenAiServer, sseOf, textChunk, type Handler } from './fakeOpenAiServer';

async function rejectsWith(p: Promise<unknown>, code: string, re?: RegExp): Promise<MemoryError> {
  try {
    await p;
  } catch (e) {
    assert.ok(isMemoryError(e), `expected a MemoryError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (re) assert.match(e.message, re);
    return e;
  }
  assert.fail(`expected ${code}`);
}

describe('isLoopback', () => {
  it('accepts 127.0.0.0/8, ::1 and localhost', () => {
    for (const u of ['http://127.0.0.1:11434/v1', 'http://127.1.2.3:8080', 'http://localhost:1234/v1', 'http://LOCALHOST', 'http://[::1]:8000/v1', 'http://[::ffff:127.0.0.1]:80']) {
      assert.equal(isLoopback(u), true, u);
    }
  });
  it('refuses other hosts and unparsable URLs', () => {
    for (const u of ['http://10.0.0.5:11434/v1', 'https://api.openai.com/v1', 'http://128.0.0.1', 'http://localhost.example.com', 'http://0.0.0.0:8080', 'not a url', '']) {
      assert.equal(isLoopback(u), false, u);
    }
  });
});

describe('estimateTokens', () => {
  it('counts about four characters per token for alphabetic text', () => {
    assert.equal(estimateTokens(''), 0);
    assert.equal(estimateTokens('a'.repeat(400)), 100);
  });
  it('counts each CJK character as a token', () => {
    assert.equal(estimateTokens('記憶'.repeat(50)), 100);
    assert.equal(estimateTokens('한국어'), 3);
    assert.equal(estimateTokens('ab日本'), 3);
  });
});

describe('SseParser', () => {
  const stream = ': keep-alive\r\n\r\ndata: {"a":1}\r\n\r\nevent: message\ndata: line one\ndata: line two\n\nid: 7\rdata:{"b":"ü€𝄞"}\r\r: ping\n\ndata: [DONE]\n\n';
  const expected = ['{"a":1}', 'line one\nline two', '{"b":"ü€𝄞"}', '[DONE]'];

  it('yields the same events wherever the text is split', () => {
    for (let i = 0; i <= stream.length; i++) {
      for (const j of [i, Math.min(stream.length, i + 1), Math.min(stream.length, i + 7)]) {
        const p = new SseParser();
        const out = [...p.feed(stream.slice(0, i)), ...p.feed(stream.slice(i, j)), ...p.feed(stream.slice(j)), ...p.end()];
        assert.deepEqual(out, expected, `split at ${i}/${j}`);
      }
    }
  });

  it('flushes an event left open when the stream ends without a blank line', () => {
    const p = new SseParser();
    assert.deepEqual(p.feed('data: {"x":1}'), []);
    assert.deepEqual(p.end(), ['{"x":1}']);
  });

  it('ignores comments and fields other than data', () => {
    const p = new SseParser();
    assert.deepEqual([...p.feed(': hello\nretry: 10\nevent: x\n\n'), ...p.end()], []);
  });
});

describe('OpenAiClient over loopback HTTP', () => {
  let server: FakeOpenAiServer;
  let handler: Handler = () => ({ json: {} });
  before(async () => { server = await FakeOpenAiServer.start((r) => handler(r)); });
  after(async () => { await server.close(); });
  beforeEach(() => { server.requests.length = 0; });

  const client = (extra: Partial<ConstructorParameters<typeof OpenAiClient>[0]> = {}) => new OpenAiClient({ baseUrl: server.baseUrl, ...extra });

  it('lists models with their context windows and sends the API key', async () => {
    handler = () => ({ json: { object: 'list', data: [
      { id: 'qwen2.5:7b', owned_by: 'library' },
      { id: 'llama-3.2-3b', meta: { n_ctx_train: 131072 } },
      { id: 'mistral-7b', max_model_len: 32768 },
    ] } });
    const models = await client({ apiKey: 'sk-test' }).listModels();
    assert.deepEqual(models.map((m) => [m.id, m.contextWindow]), [['qwen2.5:7b', undefined], ['llama-3.2-3b', 131072], ['mistral-7b', 32768]]);
    assert.equal(server.requests[0].method, 'GET');
    assert.equal(server.requests[0].url, '/v1/models');
    assert.equal(server.requests[0].headers.authorization, 'Bearer sk-test');
  });

  it('assembles streamed text split at awkward byte boundaries, including inside UTF-8 characters', async () => {
    const parts = ['Hé', 'llo, wörld ', '— 記憶 ', '𝄞 done'];
    const body = ': keep-alive\n\n' + sseOf([...parts.map((p) => textChunk(p)), textChunk('', 'stop')]);
    const buf = Buffer.from(body, 'utf8');
    const cuts: number[] = [];
    for (let i = 1; i < buf.length; i += 3) cuts.push(i); // every 3 bytes: splits multi-byte chars and `data:` prefixes
    handler = () => ({ sse: buf, cuts });
    const seen: string[] = [];
    const r = await client().chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, (t) => seen.push(t));
    assert.equal(r.content, parts.join(''));
    assert.deepEqual(seen, parts);
    assert.equal(r.finishReason, 'stop');
    assert.deepEqual(r.toolCalls, []);
    assert.equal(server.chats[0].body.stream, true);
    assert.match(String(server.chats[0].headers.accept), /text\/event-stream/);
  });

  it('handles CRLF line endings and several JSON objects in one event', async () => {
    handler = () => ({ sse: `data: ${JSON.stringify(textChunk('a'))}\r\ndata: ${JSON.stringify(textChunk('b'))}\r\n\r\ndata: [DONE]\r\n\r\n` });
    const r = await client().chat({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(r.content, 'ab');
  });

  it('assembles streamed tool calls from index, id, name and argument fragments', async () => {
    const tc = (tool_calls: unknown[], finish: string | null = null) => ({ choices: [{ index: 0, delta: { tool_calls }, finish_reason: finish }] });
    const events = [
      { choices: [{ index: 0, delta: { role: 'assistant', content: null } }] },
      tc([{ index: 0, id: 'call_a', type: 'function', function: { name: 'memory_search', arguments: '' } }]),
      tc([{ index: 0, function: { arguments: '{"que' } }]),
      tc([{ index: 1, id: 'call_b', type: 'function', function: { name: 'memory_expand', arguments: '{"id":' } }]),
      tc([{ index: 0, function: { arguments: 'ry":"tabs"}' } }]),
      tc([{ index: 1, function: { arguments: '"vt:semantic/x.md"}' } }]),
      tc([], 'tool_calls'),
      { choices: [], usage: { prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 } },
    ];
    const buf = Buffer.from(sseOf(events), 'utf8');
    handler = () => ({ sse: buf, cuts: [5, 17, 90, 91, 200, 333] });
    const evs: ChatEvent[] = [];
    for await (const ev of client({ streamUsage: true }).streamChat({
      model: 'm', messages: [{ role: 'user', content: 'find tabs' }],
      tools: [{ name: 'memory_search', description: 'search', parameters: { type: 'object', properties: { query: { type: 'string' } } } }],
    })) evs.push(ev);
    const calls = evs.filter((e) => e.type === 'tool_call').map((e) => (e as { call: unknown }).call);
    assert.deepEqual(calls, [
      { id: 'call_a', name: 'memory_search', arguments: '{"query":"tabs"}' },
      { id: 'call_b', name: 'memory_expand', arguments: '{"id":"vt:semantic/x.md"}' },
    ]);
    assert.deepEqual(evs.find((e) => e.type === 'usage'), { type: 'usage', usage: { promptTokens: 12, completionTokens: 30, totalTokens: 42 } });
    assert.deepEqual(evs[evs.length - 1], { type: 'done', finishReason: 'tool_calls' });
    const body = server.chats[0].body;
    assert.deepEqual(body.tools[0], { type: 'function', function: { name: 'memory_search', description: 'search', parameters: { type: 'object', properties: { query: { type: 'string' } } } } });
    assert.deepEqual(body.stream_options, { include_usage: true });
  });

  it('accepts whole tool calls without an index, with object arguments (older Ollama)', async () => {
    handler = () => ({ sse: sseOf([
      { choices: [{ delta: { tool_calls: [{ id: 'x1', function: { name: 'memory_status', arguments: {} } }] } }] },
      { choices: [{ delta: { tool_calls: [{ id: 'x2', function: { name: 'memory_search', arguments: { query: 'q' } } }] }, finish_reason: 'tool_calls' }] },
    ]) });
    const r = await client().chat({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    assert.deepEqual(r.toolCalls, [
      { id: 'x1', name: 'memory_status', arguments: '{}' },
      { id: 'x2', name: 'memory_search', arguments: '{"query":"q"}' },
    ]);
  });

  it('falls back to a plain JSON answer when a streaming request gets one', async () => {
    handler = () => ({ json: { ...(chatJson('whole answer') as object), usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } } });
    const r = await client().chat({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(r.content, 'whole answer');
    assert.deepEqual(r.usage, { promptTokens: 3, completionTokens: 2, totalTokens: 5 });
  });

  it('reads an event stream sent with the wrong content type', async () => {
    handler = () => ({ sse: sseOf([textChunk('ok')]), contentType: 'text/plain' });
    const r = await client().chat({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(r.content, 'ok');
  });

  it('sends a non-streaming request with tool results and reads its tool calls', async () => {
    handler = () => ({ json: chatJson('', { content: null, tool_calls: [{ id: 'c9', type: 'function', function: { name: 'memory_forget', arguments: '{"id":"vt:a.md"}' } }] }) });
    const r = await client().chat({
      model: 'm', stream: false, maxTokens: 50, temperature: 0.2,
      messages: [
        { role: 'user', content: 'forget a' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'memory_search', arguments: '{}' }] },
        { role: 'tool', content: 'result', toolCallId: 'c1' },
      ],
    });
    assert.deepEqual(r.toolCalls, [{ id: 'c9', name: 'memory_forget', arguments: '{"id":"vt:a.md"}' }]);
    const body = server.chats[0].body;
    assert.equal(body.stream, false);
    assert.equal(body.max_tokens, 50);
    assert.equal(body.temperature, 0.2);
    assert.deepEqual(body.messages[1], { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'memory_search', arguments: '{}' } }] });
    assert.deepEqual(body.messages[2], { role: 'tool', content: 'result', tool_call_id: 'c1' });
    assert.equal(body.response_format, undefined);
  });

  it('asks for a JSON object only when json mode is on', async () => {
    handler = () => ({ json: chatJson('{}') });
    await client({ jsonMode: true }).chat({ model: 'm', messages: [{ role: 'user', content: 'x' }], json: true });
    assert.deepEqual(server.chats[0].body.response_format, { type: 'json_object' });
  });

  describe('errors', () => {
    const ask = (c = client()) => c.chat({ model: 'llama3', messages: [{ role: 'user', content: 'my secret plan is blue' }] });

    it('maps 401 and 403 to E_MODEL_PERMISSION', async () => {
      handler = () => ({ status: 401, json: { error: { message: 'Invalid API key', type: 'invalid_request_error', code: 'invalid_api_key' } } });
      const e = await rejectsWith(ask(), 'E_MODEL_PERMISSION', /refused the request \(401\).*API key/);
      assert.equal(e.details?.serverCode, 'invalid_api_key');
      handler = () => ({ status: 403, text: 'forbidden' });
      await rejectsWith(ask(), 'E_MODEL_PERMISSION', /403/);
    });

    it('maps a 404 naming the model to E_MODEL_NOT_FOUND', async () => {
      handler = () => ({ status: 404, json: { error: { message: 'model "llama3" not found, try pulling it first', type: 'api_error' } } });
      await rejectsWith(ask(), 'E_MODEL_NOT_FOUND', /model "llama3" is not available at 127\.0\.0\.1:\d+/);
    });

    it('maps a 404 for the path to E_MODEL_UNAVAILABLE with a base-URL hint', async () => {
      handler = () => ({ status: 404, text: '404 page not found' });
      await rejectsWith(ask(), 'E_MODEL_UNAVAILABLE', /check the base URL \(it usually ends in \/v1\)/);
      await rejectsWith(client().listModels(), 'E_MODEL_UNAVAILABLE', /base URL/);
    });

    it('maps context-length errors to E_TOO_LARGE (OpenAI, llama.cpp, vLLM wording)', async () => {
      for (const body of [
        { error: { message: 'too long', type: 'invalid_request_error', code: 'context_length_exceeded' } },
        { error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error' } },
        { object: 'error', message: "This model's maximum context length is 4096 tokens. However, you requested 9000 tokens", type: 'BadRequestError', code: 400 },
      ]) {
        handler = () => ({ status: 400, json: body });
        await rejectsWith(ask(), 'E_TOO_LARGE', /larger than the context window of model "llama3"/);
      }
    });

    it('maps other 400s to E_BAD_INPUT, 429 to E_MODEL_UNAVAILABLE and 500 to E_MODEL_ERROR', async () => {
      handler = () => ({ status: 400, json: { error: { message: 'temperature must be ≤ 2' } } });
      await rejectsWith(ask(), 'E_BAD_INPUT', /rejected the request \(400\)/);
      handler = () => ({ status: 429, json: { error: { message: 'slow down' } } });
      await rejectsWith(ask(), 'E_MODEL_UNAVAILABLE', /busy \(429\)/);
      handler = () => ({ status: 500, text: 'internal error' });
      await rejectsWith(ask(), 'E_MODEL_ERROR', /failed \(500\)/);
    });

    it('maps an error sent inside the stream', async () => {
      handler = () => ({ sse: sseOf([textChunk('par'), { error: { message: 'model crashed', type: 'server_error' } }]) });
      await rejectsWith(ask(), 'E_MODEL_ERROR', /reported an error during the answer/);
    });

    it('refuses a stream that ends without sending anything', async () => {
      handler = () => ({ sse: ': only a comment\n\n' });
      await rejectsWith(ask(), 'E_MODEL_ERROR', /without sending anything/);
    });

    it('never puts prompt text in an error message', async () => {
      handler = () => ({ status: 500, json: { error: { message: 'failed on: my secret plan is blue' } } });
      const e = await rejectsWith(ask(), 'E_MODEL_ERROR');
      assert.doesNotMatch(e.message + JSON.stringify(e.details), /secret plan/);
    });

    it('reports a refused connection as E_MODEL_UNAVAILABLE naming the host', async () => {
      const tmp = await FakeOpenAiServer.start(() => ({ json: {} }));
      const url = tmp.baseUrl;
      const host = `127.0.0.1:${tmp.port}`;
      await tmp.close();
      const c = new OpenAiClient({ baseUrl: url });
      const e = await rejectsWith(c.chat({ model: 'm', messages: [{ role: 'user', content: 'x' }] }), 'E_MODEL_UNAVAILABLE');
      assert.equal(e.message, `cannot reach ${host}: is the server running?`);
      await rejectsWith(c.listModels(), 'E_MODEL_UNAVAILABLE', /is the server running\?/);
    });

    it('times out a server that never answers, and one that stops after the headers', async () => {
      handler = () => ({ hang: 'headers' });
      await rejectsWith(ask(client({ timeoutMs: 150 })), 'E_MODEL_TIMEOUT', /made no progress for 0\.2 s|made no progress for 0\.1 s/);
      handler = () => ({ hang: 'body' });
      await rejectsWith(ask(client({ timeoutMs: 150 })), 'E_MODEL_TIMEOUT');
    });

    it('cancels through the AbortSignal, before or during the request', async () => {
      const pre = new AbortController();
      pre.abort();
      await rejectsWith(client().chat({ model: 'm', messages: [{ role: 'user', content: 'x' }], signal: pre.signal }), 'E_CANCELLED');
      assert.equal(server.chats.length, 0);

      handler = () => ({ hang: 'body' });
      const ctl = new AbortController();
      const p = client({ timeoutMs: 30_000 }).chat({ model: 'm', messages: [{ role: 'user', content: 'x' }], signal: ctl.signal });
      while (server.chats.length === 0) await new Promise((r) => setImmediate(r));
      ctl.abort();
      await rejectsWith(p, 'E_CANCELLED', /cancelled/);
    });

    it('refuses bad base URLs and empty requests with a clear error', async () => {
      assert.throws(() => new OpenAiClient({ baseUrl: '' }), (e: unknown) => isMemoryError(e, 'E_BAD_INPUT'));
      assert.throws(() => new OpenAiClient({ baseUrl: 'ftp://127.0.0.1/v1' }), /http:\/\/ or https:\/\//);
      assert.throws(() => new OpenAiClient({ baseUrl: '127.0.0.1:11434' }), (e: unknown) => isMemoryError(e, 'E_BAD_INPUT'));
      await rejectsWith(client().chat({ model: '', messages: [{ role: 'user', content: 'x' }] }), 'E_BAD_INPUT');
      await rejectsWith(client().chat({ model: 'm', messages: [] }), 'E_BAD_INPUT');
    });
  });

  describe('OpenAiBackgroundModel', () => {
    it('is local on loopback, names its provider and returns the streamed answer', async () => {
      handler = () => ({ sse: sseOf([textChunk('{"notes":'), textChunk('[]}', 'stop')]) });
      const m = OpenAiBackgroundModel.fromSetting({ name: 'Ollama', baseUrl: server.baseUrl + '/', model: 'qwen2.5:7b', contextWindow: 8192 });
      assert.equal(m.local, true);
      assert.equal(m.provider, 'Ollama');
      assert.equal(m.id, 'qwen2.5:7b');
      assert.equal(m.contextWindow, 8192);
      const text = await m.complete([{ role: 'system', content: 's' }, { role: 'user', content: 'u' }], { maxTokens: 10, temperature: 0 });
      assert.equal(text, '{"notes":[]}');
      assert.equal(server.chats[0].url, '/v1/chat/completions');
      assert.equal(server.chats[0].body.model, 'qwen2.5:7b');
    });

    it('is not local for a remote host and defaults its provider to the host', () => {
      const m = new OpenAiBackgroundModel({ baseUrl: 'https://llm.example.com/v1', model: 'big' });
      assert.equal(m.local, false);
      assert.equal(m.provider, 'llm.example.com');
    });
  });
});

describe('selectBackgroundModel', () => {
  const mk = (id: string, provider: string, local: boolean): BackgroundModel => ({ id, provider, local, complete: async () => '' });
  const remote = mk('gpt-x', 'copilot', false);
  const local = mk('qwen', 'Ollama', true);
  it('prefers the designated model, then a local one, then the first', () => {
    assert.equal(selectBackgroundModel([remote, local], 'gpt-x'), remote);
    assert.equal(selectBackgroundModel([remote, local], 'Ollama/qwen'), local);
    assert.equal(selectBackgroundModel([remote, local], ''), local);
    assert.equal(selectBackgroundModel([remote], 'missing'), remote);
    assert.equal(selectBackgroundModel([], ''), undefined);
  });
});
