// A real HTTP server on 127.0.0.1 that answers like an OpenAI-compatible chat server, scripted per test:
// JSON bodies, server-sent-event streams cut into chunks at chosen byte offsets, error statuses, or a hang.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- arbitrary request JSON that tests pick apart
  body: any;
  raw: string;
}

export type Reply =
  | { status?: number; json: unknown }
  | { status?: number; text: string; contentType?: string }
  | { sse: string | Buffer; cuts?: number[]; contentType?: string }
  | { hang: 'headers' | 'body' };

export type Handler = (req: RecordedRequest) => Reply | Promise<Reply>;

/** `data: <json>` events followed by `[DONE]`. */
export function sseOf(events: unknown[], opts: { done?: boolean; eol?: string } = {}): string {
  const eol = opts.eol ?? '\n';
  let s = '';
  for (const e of events) s += `data: ${typeof e === 'string' ? e : JSON.stringify(e)}${eol}${eol}`;
  if (opts.done !== false) s += `data: [DONE]${eol}${eol}`;
  return s;
}

/** One streamed chat chunk with a text delta. */
export function textChunk(text: string, finish: string | null = null): unknown {
  return { id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: text }, finish_reason: finish }] };
}

/** A complete (non-streaming) chat answer. */
export function chatJson(content: string, extra: Record<string, unknown> = {}): unknown {
  return { id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content, ...extra }, finish_reason: 'stop' }] };
}

export class FakeOpenAiServer {
  readonly requests: RecordedRequest[] = [];
  private constructor(private readonly server: http.Server, public handler: Handler) {}

  static async start(handler: Handler): Promise<FakeOpenAiServer> {
    const ref: { self?: FakeOpenAiServer } = {};
    const server = http.createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(parts).toString('utf8');
        let body: unknown = undefined;
        try { body = raw ? JSON.parse(raw) : undefined; } catch { body = undefined; }
        const rec: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, raw };
        const self = ref.self!;
        self.requests.push(rec);
        void Promise.resolve(self.handler(rec)).then((reply) => respond(res, reply));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const self = (ref.self = new FakeOpenAiServer(server, handler));
    return self;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Chat requests only. */
  get chats(): RecordedRequest[] {
    return this.requests.filter((r) => r.url.endsWith('/chat/completions'));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function respond(res: http.ServerResponse, reply: Reply): Promise<void> {
  if ('hang' in reply) {
    if (reply.hang === 'body') {
      // Headers only; no byte of the body ever comes.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
    }
    return;
  }
  if ('json' in reply) {
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(reply.json));
    return;
  }
  if ('text' in reply) {
    res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'text/plain' });
    res.end(reply.text);
    return;
  }
  const buf = typeof reply.sse === 'string' ? Buffer.from(reply.sse, 'utf8') : reply.sse;
  res.writeHead(200, { 'content-type': reply.contentType ?? 'text/event-stream', 'cache-control': 'no-cache' });
  const cuts = [...(reply.cuts ?? []).filter((c) => c > 0 && c < buf.length), buf.length].sort((a, b) => a - b);
  let at = 0;
  for (const c of cuts) {
    if (c <= at) continue;
    await new Promise<void>((resolve) => res.write(buf.subarray(at, c), () => resolve()));
    at = c;
  }
  res.end();
}
