// The fast path of `vscode-memory hook`: while VS Code is open, its extension already holds the store open and
// warm, so the hook forwards its stdin over a local socket and prints the answer — no store open, no index load
// in the hook's process. Nobody listening (VS Code closed, another version, a stale socket) → the hook opens the
// store itself. One JSON line each way: `{v: 1, raw, event?, agent?}` → `{v: 1, output}`.
// The socket is the user's alone: a Unix socket (mode 0600) in a folder of mode 0700 — under the store when the
// path is short enough for sun_path (~104 bytes), else in $XDG_RUNTIME_DIR (or the temp folder) in a folder
// named with the uid, whose owner is checked; on Windows a named pipe named after the store.
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export const SOCKET_PROTOCOL = 1;
/** sun_path is 104 bytes on macOS, 108 on Linux: stay under both. */
const MAX_SOCKET_PATH = 100;
const MAX_LINE = 2 * 1024 * 1024;

export interface SocketRequest { v: number; raw: string; event?: string; agent?: string }
export interface SocketAnswer { v: number; output: string }

/** Where the extension listens for the hooks of the store in `storeDir`. */
export function hookSocketPath(storeDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const abs = path.resolve(storeDir);
  const id = createHash('sha256').update(abs).digest('hex').slice(0, 16);
  if (process.platform === 'win32') return `\\\\.\\pipe\\vscode-memory-${id}`;
  const inStore = path.join(abs, 'hooks', 'hook.sock');
  if (Buffer.byteLength(inStore) <= MAX_SOCKET_PATH) return inStore;
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return path.join(env.XDG_RUNTIME_DIR || tmpdir(), `vscode-memory-${uid}`, `${id}.sock`);
}

/** Creates the socket's folder (0700) and refuses one that another user owns or that is a link. */
export function prepareSocketDir(socketPath: string): void {
  if (process.platform === 'win32') return;
  const dir = path.dirname(socketPath);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
  if (!st.isDirectory() || st.uid !== uid) throw new Error('socket folder is not ours');
  chmodSync(dir, 0o700);
}

/** Asks the running extension; resolves undefined when nobody answers within `timeoutMs`. */
export function askExtension(socketPath: string, req: Omit<SocketRequest, 'v'>, timeoutMs: number): Promise<SocketAnswer | undefined> {
  return new Promise((resolve) => {
    let done = false;
    let buf = '';
    const finish = (v: SocketAnswer | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(v);
    };
    const sock = net.createConnection(socketPath);
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    sock.setEncoding('utf8');
    sock.on('connect', () => sock.write(JSON.stringify({ v: SOCKET_PROTOCOL, ...req }) + '\n'));
    sock.on('data', (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl < 0) { if (buf.length > MAX_LINE) finish(undefined); return; }
      try {
        const a = JSON.parse(buf.slice(0, nl)) as SocketAnswer;
        finish(a && a.v === SOCKET_PROTOCOL && typeof a.output === 'string' ? a : undefined);
      } catch { finish(undefined); }
    });
    sock.on('error', () => finish(undefined));
    sock.on('close', () => finish(undefined));
  });
}

/**
 * Serves hook requests on `socketPath` (the extension). A live socket of another window is left alone
 * (`listening` resolves false); a stale one is replaced. `handle` answers one request.
 */
export class HookSocketServer {
  private server: net.Server | undefined;

  constructor(private readonly socketPath: string, private readonly handle: (req: SocketRequest) => Promise<string>) {}

  async listen(): Promise<boolean> {
    prepareSocketDir(this.socketPath);
    const server = net.createServer((conn) => this.serve(conn));
    const tryListen = () => new Promise<boolean>((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) => (e.code === 'EADDRINUSE' ? resolve(false) : reject(e)));
      server.listen(this.socketPath, () => resolve(true));
    });
    if (!(await tryListen())) {
      // In use: another window answers (leave it), or a crashed one left the file behind (replace it).
      const alive = await new Promise<boolean>((resolve) => {
        const c = net.createConnection(this.socketPath);
        c.once('connect', () => { c.destroy(); resolve(true); });
        c.once('error', () => resolve(false));
      });
      if (alive || process.platform === 'win32') return false;
      try { unlinkSync(this.socketPath); } catch { /* raced */ }
      if (!(await tryListen())) return false;
    }
    if (process.platform !== 'win32') chmodSync(this.socketPath, 0o600);
    this.server = server;
    return true;
  }

  private serve(conn: net.Socket): void {
    let buf = '';
    conn.setEncoding('utf8');
    conn.on('error', () => conn.destroy());
    conn.on('data', (d: string) => {
      buf += d;
      if (buf.length > MAX_LINE) { conn.destroy(); return; }
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      let req: SocketRequest;
      try { req = JSON.parse(buf.slice(0, nl)) as SocketRequest; } catch { conn.destroy(); return; }
      buf = '';
      if (!req || req.v !== SOCKET_PROTOCOL || typeof req.raw !== 'string') { conn.destroy(); return; }
      this.handle(req).then(
        (output) => conn.end(JSON.stringify({ v: SOCKET_PROTOCOL, output } satisfies SocketAnswer) + '\n'),
        () => conn.end(JSON.stringify({ v: SOCKET_PROTOCOL, output: '' } satisfies SocketAnswer) + '\n'),
      );
    });
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
