// Locates sql.js's wasm and loads it from bytes we read ourselves (ARCHITECTURE "Durability" 6):
// `initSqlJs` with a missing wasm file kills the process, so a missing or invalid file becomes
// MemoryError('E_WASM_MISSING') before sql.js ever sees it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { MemoryError } from '../errors';

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

/** Loads sql.js once per wasm file; safe to call from many stores. */
export function loadSqlJs(wasmPath?: string): Promise<SqlJs> {
  const { file, bytes } = readWasm(wasmCandidates(wasmPath));
  let p = loaded.get(file);
  if (!p) {
    const binary = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    p = initSqlJs({ wasmBinary: binary }).catch((e: unknown) => {
      loaded.delete(file);
      throw new MemoryError('E_WASM_MISSING', `sql-wasm.wasm could not be instantiated: ${(e as Error)?.message ?? e}`);
    });
    loaded.set(file, p);
  }
  return p;
}
