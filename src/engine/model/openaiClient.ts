// A client for OpenAI-compatible chat servers (Ollama, llama.cpp server, LM Studio, vLLM) over Node's fetch,
// and the engine's HTTP BackgroundModel (SPEC R-UI-9). Invariants: every failure is a MemoryError with a
// stable code and a message that names the server, never prompt or answer text; a request that makes no
// progress (no headers, no bytes) for `timeoutMs` fails with E_MODEL_TIMEOUT; an aborted signal gives E_CANCELLED.
import { MemoryError, type MemoryErrorCode } from '../errors';
import type { LocalModelSetting } from '../settings';
import type { BackgroundMessage, BackgroundModel, CompleteOptions } from './backgroundModel';

// ---------------------------------------------------------------------------------------------
// Types

export interface OpenAiClientOptions {
  /** e.g. `http://127.0.0.1:11434/v1` (Ollama), `http://127.0.0.1:8080/v1` (llama.cpp server). */
  baseUrl: string;
  apiKey?: string;
  /** Milliseconds without progress (headers or a body chunk) before E_MODEL_TIMEOUT. Default 60 s. */
  timeoutMs?: number;
  headers?: Record<string, string>;
  /** Send `response_format: {type: 'json_object'}` for json requests (off: LM Studio refuses it). */
  jsonMode?: boolean;
  /** Ask for usage in streams (`stream_options.include_usage`; off: some servers refuse unknown fields). */
  streamUsage?: boolean;
  fetch?: typeof fetch;
}

export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';

export interface ToolCall {
  id: string;
  name: string;
  /** The JSON arguments as the model wrote them (`{}` when it sent none). */
  arguments: string;
}

export interface ChatMessage {
  role: ChatRole;
  content: string | null;
  /** Assistant turns that called tools. */
  toolCalls?: ToolCall[];
  /** Tool results: the call they answer. */
  toolCallId?: string;
}

export interface ToolSpec {
  name: string;
  description?: string;
  /** JSON schema of the arguments. */
  parameters?: Record<string, unknown>;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** Default true. */
  stream?: boolean;
  maxTokens?: number;
  temperature?: number;
  json?: boolean;
  signal?: AbortSignal;
  /** Overrides the client's progress timeout for this request. */
  timeoutMs?: number;
}

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export type ChatEvent =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'usage'; usage: ChatUsage }
  | { type: 'done'; finishReason: string | null };

export interface ChatResult {
  content: string;
  toolCalls: ToolCall[];
  finishReason: string | null;
  usage?: ChatUsage;
}

export interface ModelInfo {
  id: string;
  ownedBy?: string;
  /** Context window when the server reports it (llama.cpp `meta.n_ctx_train`, vLLM `max_model_len`, …). */
  contextWindow?: number;
}

/** 60 s: a local model loading into memory can take tens of seconds before its first byte. */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** 32 MiB: no chat answer or model list is that large; protects against a runaway body. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** 64 KiB of an error body is plenty to find its code. */
const MAX_ERROR_BYTES = 64 * 1024;

// ---------------------------------------------------------------------------------------------
// Helpers

/** True for loopback hosts: 127.0.0.0/8, ::1 (also IPv4-mapped), `localhost`. Unparsable → false. */
export function isLoopback(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || /^(?:0{0,4}:){7}0{0,3}1$/.test(host)) return true;
  const mapped = /^::ffff:(.+)$/.exec(host);
  if (mapped) {
    const v4 = mapped[1];
    if (/^127\./.test(v4)) return true;
    // WHATWG URL writes ::ffff:127.0.0.1 as ::ffff:7f00:1
    const hex = /^([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(v4);
    return !!hex && parseInt(hex[1], 16) >> 8 === 127;
  }
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return !!m && Number(m[1]) === 127 && m.slice(2).every((x) => Number(x) <= 255);
}

const CJK_RE = /[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]|[\u{20000}-\u{2fa1f}]/u;

/**
 * A rough token count for `provideTokenCount`: 4 characters per token for alphabetic text (the common
 * BPE rule of thumb), 1 token per CJK character (those tokenisers rarely merge CJK characters).
 */
export function estimateTokens(text: string): number {
  if (typeof text !== 'string' || text.length === 0) return 0;
  let cjk = 0;
  let other = 0;
  for (const ch of text) {
    if (ch.charCodeAt(0) >= 0x1100 && CJK_RE.test(ch)) cjk++;
    else other++;
  }
  return Math.ceil(other / 4 + cjk);
}

function normalizeBaseUrl(baseUrl: string): URL {
  if (typeof baseUrl !== 'string' || !baseUrl.trim()) throw new MemoryError('E_BAD_INPUT', 'the model server base URL is empty');
  let u: URL;
  try {
    u = new URL(baseUrl.trim());
  } catch {
    throw new MemoryError('E_BAD_INPUT', 'the model server base URL is not a valid URL (example: http://127.0.0.1:11434/v1)');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new MemoryError('E_BAD_INPUT', 'the model server base URL must start with http:// or https://');
  u.pathname = u.pathname.replace(/\/+$/, '');
  u.search = '';
  u.hash = '';
  return u;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'EPIPE',
  'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CLOSED',
]);

function causeCode(e: unknown): string | undefined {
  for (let c: unknown = e, i = 0; c && i < 5; c = (c as { cause?: unknown }).cause, i++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** Resets a timer on every sign of progress; aborts the request when none comes for `ms`. */
class Watchdog {
  private readonly ctl = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  timedOut = false;
  readonly signal: AbortSignal;

  constructor(readonly ms: number, private readonly outer?: AbortSignal) {
    this.signal = outer ? AbortSignal.any([this.ctl.signal, outer]) : this.ctl.signal;
    this.kick();
  }
  kick(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.ctl.abort(new MemoryError('E_MODEL_TIMEOUT', 'timeout'));
    }, this.ms);
    this.timer.unref?.();
  }
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
  get cancelled(): boolean {
    return !!this.outer?.aborted;
  }
}

/** Picks `error.message`, `error.code`, `error.type` from the usual error bodies (OpenAI, Ollama, llama.cpp). */
function errorInfo(body: string): { message: string; code: string } {
  let message = '';
  let code = '';
  try {
    const j = JSON.parse(body) as Record<string, unknown>;
    const err = j.error ?? j;
    if (typeof err === 'string') message = err;
    else if (err && typeof err === 'object') {
      const o = err as Record<string, unknown>;
      if (typeof o.message === 'string') message = o.message;
      if (typeof o.code === 'string' || typeof o.code === 'number') code = String(o.code);
      if (!code && typeof o.type === 'string') code = o.type;
      if (typeof o.type === 'string' && o.type !== code) message += ` ${o.type}`;
    }
    if (!message && typeof j.detail === 'string') message = j.detail;
  } catch {
    message = body.slice(0, 2000);
  }
  return { message, code };
}

const CONTEXT_RE = /context[ _-]?(?:length|size|window)|exceed_context|too many tokens|maximum (?:context|input)|(?:prompt|input|request) (?:is )?too long|exceeds? the (?:available )?context/i;

/** A short server error code safe to log (no spaces, no text). */
function safeCode(code: string): string | undefined {
  return /^[\w.-]{1,64}$/.test(code) ? code : undefined;
}

// ---------------------------------------------------------------------------------------------
// SSE

/**
 * Incremental server-sent-events parser: feed decoded text as it arrives (split anywhere, even inside
 * a `\r\n`), get back the data payloads of finished events. Comments (`: keep-alive`) and fields other
 * than `data` are ignored. `end()` flushes an event left open by a stream that ended without a blank line.
 */
export class SseParser {
  private buf = '';
  private data: string[] = [];

  feed(text: string): string[] {
    this.buf += text;
    const out: string[] = [];
    let start = 0;
    for (let i = 0; i < this.buf.length; i++) {
      const c = this.buf.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      if (c === 13 && i + 1 === this.buf.length) break; // maybe the first half of \r\n: wait for more
      this.line(this.buf.slice(start, i), out);
      if (c === 13 && this.buf.charCodeAt(i + 1) === 10) i++;
      start = i + 1;
    }
    this.buf = this.buf.slice(start);
    return out;
  }

  end(): string[] {
    const out: string[] = [];
    if (this.buf.length) this.line(this.buf.replace(/\r$/, ''), out);
    this.buf = '';
    if (this.data.length) out.push(this.data.join('\n'));
    this.data = [];
    return out;
  }

  private line(line: string, out: string[]): void {
    if (line === '') {
      if (this.data.length) out.push(this.data.join('\n'));
      this.data = [];
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    this.data.push(value);
  }
}

/** Collects streamed tool-call fragments (`delta.tool_calls`) into whole calls. */
class ToolCallAssembler {
  private readonly slots: { id: string; name: string; args: string; whole: boolean }[] = [];
  private readonly byIndex = new Map<number, { id: string; name: string; args: string; whole: boolean }>();

  add(deltas: unknown): void {
    if (!Array.isArray(deltas)) return;
    for (const d of deltas) {
      if (!d || typeof d !== 'object') continue;
      const tc = d as { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } };
      const id = typeof tc.id === 'string' && tc.id ? tc.id : undefined;
      let slot;
      if (typeof tc.index === 'number') {
        slot = this.byIndex.get(tc.index);
        if (!slot) {
          slot = { id: '', name: '', args: '', whole: false };
          this.byIndex.set(tc.index, slot);
          this.slots.push(slot);
        }
      } else {
        // Servers that omit `index` (older Ollama) send each call whole, or continue the last one.
        slot = id ? this.slots.find((s) => s.id === id) : this.slots[this.slots.length - 1];
        if (!slot) {
          slot = { id: '', name: '', args: '', whole: false };
          this.slots.push(slot);
        }
      }
      if (id && !slot.id) slot.id = id;
      const name = tc.function?.name;
      if (typeof name === 'string' && name) slot.name = !slot.name || slot.name === name ? name : slot.name + name;
      const args = tc.function?.arguments;
      if (typeof args === 'string') {
        if (!slot.whole) slot.args += args;
      } else if (args && typeof args === 'object') {
        slot.args = JSON.stringify(args);
        slot.whole = true;
      }
    }
  }

  calls(): ToolCall[] {
    return this.slots
      .filter((s) => s.name)
      .map((s, i) => ({ id: s.id || `call_${i}`, name: s.name, arguments: s.args.trim() ? s.args : '{}' }));
  }
}

function usageOf(u: unknown): ChatUsage | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const o = u as Record<string, unknown>;
  const p = typeof o.prompt_tokens === 'number' ? o.prompt_tokens : undefined;
  const c = typeof o.completion_tokens === 'number' ? o.completion_tokens : undefined;
  if (p === undefined && c === undefined) return undefined;
  const t = typeof o.total_tokens === 'number' ? o.total_tokens : (p ?? 0) + (c ?? 0);
  return { promptTokens: p ?? 0, completionTokens: c ?? 0, totalTokens: t };
}

// ---------------------------------------------------------------------------------------------
// Client

export class OpenAiClient {
  readonly baseUrl: string;
  /** `host:port`, for messages. */
  readonly host: string;
  readonly local: boolean;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;

  constructor(private readonly opts: OpenAiClientOptions) {
    const u = normalizeBaseUrl(opts.baseUrl);
    this.baseUrl = u.toString().replace(/\/+$/, '');
    this.host = u.host;
    this.local = isLoopback(this.baseUrl);
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.fetchFn = opts.fetch ?? fetch;
  }

  /** GET /models. */
  async listModels(opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ModelInfo[]> {
    const wd = new Watchdog(opts.timeoutMs ?? this.timeoutMs, opts.signal);
    try {
      const res = await this.send('/models', { method: 'GET' }, wd, 'models');
      const text = await this.readAll(res, wd, MAX_BODY_BYTES);
      let j: unknown;
      try {
        j = JSON.parse(text);
      } catch {
        throw new MemoryError('E_MODEL_ERROR', `the server at ${this.host} sent a model list that is not JSON`);
      }
      const o = (j ?? {}) as Record<string, unknown>;
      const list = Array.isArray(o.data) ? o.data : Array.isArray(o.models) ? o.models : Array.isArray(j) ? (j as unknown[]) : [];
      const out: ModelInfo[] = [];
      for (const m of list) {
        if (!m || typeof m !== 'object') continue;
        const r = m as Record<string, unknown>;
        const id = typeof r.id === 'string' ? r.id : typeof r.name === 'string' ? r.name : typeof r.model === 'string' ? r.model : '';
        if (!id || out.some((x) => x.id === id)) continue;
        const meta = (r.meta && typeof r.meta === 'object' ? r.meta : {}) as Record<string, unknown>;
        const ctx = [r.context_length, r.max_model_len, r.max_context_length, r.loaded_context_length, meta.n_ctx_train, meta.n_ctx]
          .find((v) => typeof v === 'number' && v > 0) as number | undefined;
        out.push({ id, ownedBy: typeof r.owned_by === 'string' ? r.owned_by : undefined, contextWindow: ctx });
      }
      return out;
    } catch (e) {
      throw this.translate(e, wd);
    } finally {
      wd.dispose();
    }
  }

  /** One chat completion, collected. `onText` sees streamed text as it arrives. */
  async chat(req: ChatRequest, onText?: (text: string) => void): Promise<ChatResult> {
    let content = '';
    const toolCalls: ToolCall[] = [];
    let finishReason: string | null = null;
    let usage: ChatUsage | undefined;
    for await (const ev of this.streamChat(req)) {
      if (ev.type === 'text') {
        content += ev.text;
        onText?.(ev.text);
      } else if (ev.type === 'tool_call') toolCalls.push(ev.call);
      else if (ev.type === 'usage') usage = ev.usage;
      else finishReason = ev.finishReason;
    }
    return { content, toolCalls, finishReason, usage };
  }

  /**
   * Chat completion as events: text deltas as they arrive, then whole tool calls, usage (when the
   * server sends it) and `done`. A server that answers a streaming request with plain JSON is handled.
   */
  async *streamChat(req: ChatRequest): AsyncGenerator<ChatEvent> {
    if (!req || typeof req.model !== 'string' || !req.model) throw new MemoryError('E_BAD_INPUT', 'a chat request needs a model name');
    if (!Array.isArray(req.messages) || req.messages.length === 0) throw new MemoryError('E_BAD_INPUT', 'a chat request needs at least one message');
    const stream = req.stream !== false;
    const wd = new Watchdog(req.timeoutMs ?? this.timeoutMs, req.signal);
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    try {
      const res = await this.send('/chat/completions', { method: 'POST', body: JSON.stringify(this.body(req, stream)) }, wd, 'chat', req.model);
      const type = res.headers.get('content-type') ?? '';
      if (!stream || !res.body || !/event-stream/i.test(type)) {
        const text = await this.readAll(res, wd, MAX_BODY_BYTES);
        yield* this.eventsOfBody(text, req.model);
        return;
      }
      reader = res.body.getReader();
      const decoder = new TextDecoder('utf-8');
      const sse = new SseParser();
      const tools = new ToolCallAssembler();
      const state = { finish: null as string | null, usage: undefined as ChatUsage | undefined, done: false, seen: 0 };
      while (!state.done) {
        const { value, done } = await reader.read();
        wd.kick();
        const payloads = done ? [...sse.feed(decoder.decode()), ...sse.end()] : sse.feed(decoder.decode(value, { stream: true }));
        for (const p of payloads) {
          for (const ev of this.eventsOfPayload(p, tools, state, req.model)) yield ev;
          if (state.done) break;
        }
        if (done) break;
      }
      if (!state.done && state.seen === 0) {
        throw new MemoryError('E_MODEL_ERROR', `the server at ${this.host} ended the answer without sending anything`);
      }
      for (const call of tools.calls()) yield { type: 'tool_call', call };
      if (state.usage) yield { type: 'usage', usage: state.usage };
      yield { type: 'done', finishReason: state.finish };
    } catch (e) {
      throw this.translate(e, wd, req.model);
    } finally {
      wd.dispose();
      if (reader) void reader.cancel().catch(() => undefined);
    }
  }

  // -------------------------------------------------------------------------------------------

  private body(req: ChatRequest, stream: boolean): Record<string, unknown> {
    const body: Record<string, unknown> = {
      model: req.model,
      messages: req.messages.map((m) => {
        const w: Record<string, unknown> = { role: m.role, content: m.content ?? (m.toolCalls?.length ? null : '') };
        if (m.toolCalls?.length) w.tool_calls = m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
        if (m.toolCallId) w.tool_call_id = m.toolCallId;
        return w;
      }),
      stream,
    };
    if (req.maxTokens !== undefined) body.max_tokens = req.maxTokens;
    if (req.temperature !== undefined) body.temperature = req.temperature;
    if (req.tools?.length) {
      body.tools = req.tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description ?? '', parameters: t.parameters ?? { type: 'object', properties: {} } },
      }));
    }
    if (req.json && this.opts.jsonMode) body.response_format = { type: 'json_object' };
    if (stream && this.opts.streamUsage) body.stream_options = { include_usage: true };
    return body;
  }

  private async send(p: string, init: { method: string; body?: string }, wd: Watchdog, what: 'models' | 'chat', model?: string): Promise<Response> {
    if (wd.cancelled) throw new MemoryError('E_CANCELLED', 'the model request was cancelled');
    const headers: Record<string, string> = { accept: what === 'chat' ? 'text/event-stream, application/json' : 'application/json', ...(this.opts.headers ?? {}) };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    const res = await this.fetchFn(this.baseUrl + p, { method: init.method, body: init.body, headers, signal: wd.signal });
    wd.kick();
    if (res.ok) return res;
    const text = await this.readAll(res, wd, MAX_ERROR_BYTES).catch(() => '');
    throw this.httpError(res.status, text, what, model);
  }

  private httpError(status: number, body: string, what: 'models' | 'chat', model?: string): MemoryError {
    const { message, code } = errorInfo(body);
    const details = { status, serverCode: safeCode(code) };
    const at = `the model server at ${this.host}`;
    if (status === 401 || status === 403) {
      return new MemoryError('E_MODEL_PERMISSION', `${at} refused the request (${status}): check the API key and the server's access settings`, details);
    }
    if (status === 404) {
      if (what === 'chat' && /model/i.test(message + ' ' + code)) {
        return new MemoryError('E_MODEL_NOT_FOUND', `model "${model ?? ''}" is not available at ${this.host} (404): pull or load it, or pick another model`, details);
      }
      return new MemoryError('E_MODEL_UNAVAILABLE', `no OpenAI-compatible API at ${this.baseUrl} (404): check the base URL (it usually ends in /v1)`, details);
    }
    if (status === 413 || (status >= 400 && CONTEXT_RE.test(message + ' ' + code))) {
      return new MemoryError('E_TOO_LARGE', `the request is larger than the context window of ${model ? `model "${model}"` : 'the model'} at ${this.host} (${status})`, details);
    }
    if (status === 429) return new MemoryError('E_MODEL_UNAVAILABLE', `${at} is busy (429): try again later`, details);
    if (status >= 400 && status < 500) return new MemoryError('E_BAD_INPUT', `${at} rejected the request (${status})`, details);
    return new MemoryError('E_MODEL_ERROR', `${at} failed (${status})`, details);
  }

  private async readAll(res: Response, wd: Watchdog, limit: number): Promise<string> {
    if (!res.body) return '';
    const reader = res.body.getReader();
    const decoder = new TextDecoder('utf-8');
    let out = '';
    let bytes = 0;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        wd.kick();
        if (done) break;
        bytes += value.byteLength;
        if (bytes > limit) throw new MemoryError('E_MODEL_ERROR', `the server at ${this.host} sent more than ${limit} bytes`);
        out += decoder.decode(value, { stream: true });
      }
      return out + decoder.decode();
    } finally {
      void reader.cancel().catch(() => undefined);
    }
  }

  private *eventsOfBody(text: string, model: string): Generator<ChatEvent> {
    const trimmed = text.trim();
    if (!trimmed.startsWith('{')) {
      // An event stream without its content type: parse it as one.
      const sse = new SseParser();
      const tools = new ToolCallAssembler();
      const state = { finish: null as string | null, usage: undefined as ChatUsage | undefined, done: false, seen: 0 };
      for (const p of [...sse.feed(text), ...sse.end()]) {
        yield* this.eventsOfPayload(p, tools, state, model);
        if (state.done) break;
      }
      if (state.seen === 0) throw new MemoryError('E_MODEL_ERROR', `the server at ${this.host} sent an answer that is neither JSON nor an event stream`);
      for (const call of tools.calls()) yield { type: 'tool_call', call };
      if (state.usage) yield { type: 'usage', usage: state.usage };
      yield { type: 'done', finishReason: state.finish };
      return;
    }
    let j: Record<string, unknown>;
    try {
      j = JSON.parse(trimmed) as Record<string, unknown>;
    } catch {
      throw new MemoryError('E_MODEL_ERROR', `the server at ${this.host} sent an answer that is not valid JSON`);
    }
    if (j.error) throw this.streamError(j.error, model);
    const choice = Array.isArray(j.choices) ? (j.choices[0] as Record<string, unknown> | undefined) : undefined;
    if (!choice) throw new MemoryError('E_MODEL_ERROR', `the server at ${this.host} sent an answer without choices`);
    const msg = (choice.message ?? choice.delta ?? {}) as Record<string, unknown>;
    const content = typeof msg.content === 'string' ? msg.content : typeof choice.text === 'string' ? choice.text : '';
    if (content) yield { type: 'text', text: content };
    const tools = new ToolCallAssembler();
    tools.add(Array.isArray(msg.tool_calls) ? msg.tool_calls.map((c, i) => ({ index: i, ...(c as object) })) : undefined);
    for (const call of tools.calls()) yield { type: 'tool_call', call };
    const usage = usageOf(j.usage);
    if (usage) yield { type: 'usage', usage };
    yield { type: 'done', finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null };
  }

  /** One SSE data payload → events. Tolerates servers that put several JSON objects in one event. */
  private *eventsOfPayload(
    payload: string,
    tools: ToolCallAssembler,
    state: { finish: string | null; usage: ChatUsage | undefined; done: boolean; seen: number },
    model: string,
  ): Generator<ChatEvent> {
    const p = payload.trim();
    if (!p) return;
    if (p === '[DONE]') {
      state.done = true;
      state.seen++;
      return;
    }
    let objs: unknown[];
    try {
      objs = [JSON.parse(p)];
    } catch {
      objs = [];
      for (const line of p.split('\n')) {
        const l = line.trim();
        if (l === '[DONE]') { state.done = true; break; }
        try { objs.push(JSON.parse(l)); } catch { /* a malformed chunk is skipped; the rest of the answer still counts */ }
      }
    }
    for (const o of objs) {
      if (!o || typeof o !== 'object') continue;
      const j = o as Record<string, unknown>;
      state.seen++;
      if (j.error) throw this.streamError(j.error, model);
      const usage = usageOf(j.usage);
      if (usage) state.usage = usage;
      const choice = Array.isArray(j.choices) ? (j.choices[0] as Record<string, unknown> | undefined) : undefined;
      if (!choice) continue;
      const delta = (choice.delta ?? choice.message ?? {}) as Record<string, unknown>;
      if (typeof delta.content === 'string' && delta.content) yield { type: 'text', text: delta.content };
      else if (typeof choice.text === 'string' && choice.text) yield { type: 'text', text: choice.text };
      if (delta.tool_calls) tools.add(delta.tool_calls);
      if (typeof choice.finish_reason === 'string') state.finish = choice.finish_reason;
    }
  }

  private streamError(err: unknown, model: string): MemoryError {
    const { message, code } = errorInfo(JSON.stringify({ error: err }));
    if (CONTEXT_RE.test(message + ' ' + code)) {
      return new MemoryError('E_TOO_LARGE', `the request is larger than the context window of model "${model}" at ${this.host}`, { serverCode: safeCode(code) });
    }
    if (/not[ _]found/i.test(message + ' ' + code) && /model/i.test(message + ' ' + code)) {
      return new MemoryError('E_MODEL_NOT_FOUND', `model "${model}" is not available at ${this.host}: pull or load it, or pick another model`, { serverCode: safeCode(code) });
    }
    return new MemoryError('E_MODEL_ERROR', `the model server at ${this.host} reported an error during the answer`, { serverCode: safeCode(code) });
  }

  private translate(e: unknown, wd: Watchdog, model?: string): MemoryError {
    if (wd.timedOut) {
      return new MemoryError('E_MODEL_TIMEOUT', `the model server at ${this.host} made no progress for ${Math.round(wd.ms / 100) / 10} s`);
    }
    if (wd.cancelled) return new MemoryError('E_CANCELLED', 'the model request was cancelled');
    if (e instanceof MemoryError) return e;
    const code = causeCode(e);
    if (code && NETWORK_CODES.has(code)) {
      const c: MemoryErrorCode = 'E_MODEL_UNAVAILABLE';
      return new MemoryError(c, `cannot reach ${this.host}: is the server running?`, { cause: code, model });
    }
    if (e instanceof TypeError && /fetch failed/i.test(e.message)) {
      return new MemoryError('E_MODEL_UNAVAILABLE', `cannot reach ${this.host}: is the server running?`, { cause: code ?? 'fetch_failed' });
    }
    return new MemoryError('E_MODEL_ERROR', `the request to ${this.host} failed`, { cause: code ?? (e as Error)?.name ?? typeof e });
  }
}

// ---------------------------------------------------------------------------------------------
// BackgroundModel over HTTP

export interface OpenAiModelOptions extends OpenAiClientOptions {
  model: string;
  /** Display / ledger provider name (a `memory.localModels` entry's name); default the server's host. */
  name?: string;
  contextWindow?: number;
}

export class OpenAiBackgroundModel implements BackgroundModel {
  readonly id: string;
  readonly provider: string;
  readonly local: boolean;
  readonly contextWindow?: number;
  readonly client: OpenAiClient;

  constructor(opts: OpenAiModelOptions) {
    if (typeof opts?.model !== 'string' || !opts.model.trim()) throw new MemoryError('E_BAD_INPUT', 'a local model entry needs a model name');
    this.client = new OpenAiClient(opts);
    this.id = opts.model.trim();
    this.provider = opts.name?.trim() || this.client.host;
    this.local = this.client.local;
    this.contextWindow = opts.contextWindow;
  }

  static fromSetting(s: LocalModelSetting, extra: Partial<OpenAiClientOptions> = {}): OpenAiBackgroundModel {
    return new OpenAiBackgroundModel({ ...extra, baseUrl: s.baseUrl, model: s.model, name: s.name, contextWindow: s.contextWindow });
  }

  /** Streams under the hood so a slow local model keeps the progress timeout alive. */
  async complete(messages: BackgroundMessage[], opts: CompleteOptions = {}): Promise<string> {
    const r = await this.client.chat({
      model: this.id, messages, stream: true, maxTokens: opts.maxTokens, temperature: opts.temperature, signal: opts.signal, json: opts.json,
    });
    return r.content;
  }
}
