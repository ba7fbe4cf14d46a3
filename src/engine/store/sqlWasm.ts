// Locates sql.js's wasm and loads it from bytes we read ourselves (ARCHITECTURE "Durability" 6):
// `initSqlJs` with a missing wasm file kills the process, so a missing or invalid file becomes
// MemoryError('E_WASM_MISSING') before sql.js ever sees it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type initSqlJs from 'sql.js';
import { MemoryError } from '../errors';
import { patchedInitSqlJs } from './sqlJsPatched';

export type SqlJs = initSqlJs.SqlJsStatic;

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d]; // "\0asm"
const loaded = new Map<string, Promise<SqlJs>>();

/** Where the wasm may live: an explicit path only (when given), else next to the bundle, else the package. */
export function wasmCandidates(wasmPath?: string): string[] {
  if (wasmPath) return [wasmPath];
  const out = [path.join(__dirname, 'sql-wasm.wasm')];
  try {
    out.push(require.resolve('sql.js/dist/sql-wasm.wasm'));
  } catch {
    /* not resolvable inside a bundle without node_modules: the dist/ copy must do */
  }
  return out;
}

function readWasm(candidates: string[]): { file: string; bytes: Uint8Array } {
  for (const file of candidates) {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(file);
    } catch {
      continue;
    }
    if (bytes.length > 8 && WASM_MAGIC.every((b, i) => bytes[i] === b)) return { file, bytes };
  }
  throw new MemoryError('E_WASM_MISSING', `sql-wasm.wasm was not found or is not a wasm file (looked in ${candidates.length} place(s))`, { candidates });
}

/** The WebAssembly memory of each loaded sql.js (its heap: every open database lives there). */
const memories = new WeakMap<SqlJs, WebAssembly.Memory>();

/** Bytes of sql.js's WASM heap (the memory's current size; it grows, never shrinks); 0 when unknown. */
export function sqlHeapBytes(SQL: SqlJs): number {
  return memories.get(SQL)?.buffer.byteLength ?? 0;
}

/** Loads sql.js once per wasm file; safe to call from many stores. */
export function loadSqlJs(wasmPath?: string): Promise<SqlJs> {
  const { file, bytes } = readWasm(wasmCandidates(wasmPath));
  let p = loaded.get(file);
  if (!p) {
    const binary = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    // We instantiate the module ourselves (emscripten's `instantiateWasm` hook) to keep a handle on its memory
    // for the health figures. A failed instantiation never reaches emscripten's promise, hence `failed`.
    let memory: WebAssembly.Memory | undefined;
    let fail!: (e: unknown) => void;
    const failed = new Promise<never>((_, reject) => { fail = reject; });
    const config = {
      instantiateWasm(imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance) => void): object {
        WebAssembly.instantiate(binary, imports).then((r) => {
          memory = Object.values(r.instance.exports).find((x): x is WebAssembly.Memory => x instanceof WebAssembly.Memory);
          done(r.instance);
        }, fail);
        return {};
      },
    };
    const init = patchedInitSqlJs();
    p = Promise.race([init(config as Parameters<typeof initSqlJs>[0]), failed]).then((SQL) => {
      if (memory) memories.set(SQL, memory);
      return SQL;
    }, (e: unknown) => {
      loaded.delete(file);
      throw new MemoryError('E_WASM_MISSING', `sql-wasm.wasm could not be instantiated: ${(e as Error)?.message ?? e}`);
    });
    loaded.set(file, p);
  }
  return p;
}
