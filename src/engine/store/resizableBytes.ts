// Resizable ArrayBuffers (Node 20+): memory that grows in place and can be handed back at once by
// shrinking it to nothing, instead of waiting for a garbage collection. Used for sql.js's database file
// (sqlJsPatched.ts) and for the overlay of a file read on demand (lazyFile.ts).

export type Resizable = ArrayBuffer & { resizable?: boolean; maxByteLength?: number; resize?: (n: number) => void };

const Ctor = ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => Resizable;

export const resizableSupported = ((): boolean => {
  try {
    const b = new Ctor(1, { maxByteLength: 2 });
    return b.resizable === true && typeof b.resize === 'function';
  } catch {
    return false;
  }
})();

/** A zeroed resizable buffer of `size` bytes that may grow to `max`; undefined where there are none or the reservation is refused. */
export function resizableBuffer(size: number, max: number): Resizable | undefined {
  if (!resizableSupported) return undefined;
  try {
    return new Ctor(size, { maxByteLength: max });
  } catch {
    return undefined; // address space, a sandboxed V8's limits
  }
}

/** Hands the memory behind `view` back now when it is a resizable buffer (the view reads as empty afterwards). */
export function release(view: { buffer: ArrayBufferLike } | undefined): void {
  const buf = view?.buffer as Resizable | undefined;
  if (buf?.resizable) buf.resize!(0);
}
