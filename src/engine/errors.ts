// Engine errors carry a stable code so callers branch on codes, never on message text.
// Messages never contain memory text (they may be shown and logged).

export type MemoryErrorCode =
  | 'E_USAGE'
  | 'E_NOT_FOUND'
  | 'E_REFUSED'
  | 'E_SCOPE_UNRESOLVED'
  | 'E_BAD_ID'
  | 'E_BAD_INPUT'
  | 'E_TOO_LARGE'
  | 'E_SCHEMA_NEWER'
  | 'E_CORRUPT'
  | 'E_WASM_MISSING'
  | 'E_LOCKED'
  | 'E_READ_ONLY'
  | 'E_BUDGET'
  | 'E_DISABLED'
  | 'E_CLOSED'
  | 'E_CANCELLED'
  // Background / local model calls (src/engine/model/): the server is down, refused us, lacks the model,
  // took too long, or failed on its side.
  | 'E_MODEL_UNAVAILABLE'
  | 'E_MODEL_PERMISSION'
  | 'E_MODEL_NOT_FOUND'
  | 'E_MODEL_TIMEOUT'
  | 'E_MODEL_ERROR'
  | 'E_INTERNAL';

export class MemoryError extends Error {
  constructor(readonly code: MemoryErrorCode, message: string, readonly details?: Record<string, unknown>) {
    super(message);
    this.name = 'MemoryError';
  }
}

/**
 * True for a MemoryError — also one from another bundle of this code (the CLI loads the benchmarks'
 * bundle, which has its own copy of the class), recognised by its name and `E_…` code.
 */
export function isMemoryError(e: unknown, code?: MemoryErrorCode): e is MemoryError {
  const structural = e instanceof Error && e.name === 'MemoryError' && /^E_[A-Z_]+$/.test(String((e as { code?: unknown }).code));
  return (e instanceof MemoryError || structural) && (code === undefined || (e as MemoryError).code === code);
}

/**
 * The one way to name a thrown value without its text. For logs (no fallback): a MemoryError's code, else
 * a system error's code (ENOENT…), else the error's name. For a public result (`fallback`, e.g. E_INTERNAL):
 * a MemoryError's code, else the fallback — so a surface never reports a code outside MemoryErrorCode.
 */
export function errorCode(e: unknown): string;
export function errorCode(e: unknown, fallback: MemoryErrorCode): MemoryErrorCode;
export function errorCode(e: unknown, fallback?: MemoryErrorCode): string {
  if (isMemoryError(e)) return e.code;
  if (fallback) return fallback;
  if (e instanceof Error) return (e as NodeJS.ErrnoException).code ?? e.name;
  return typeof e;
}
