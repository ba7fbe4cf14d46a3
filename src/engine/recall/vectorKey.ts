// Small helpers of the recall index (recallIndex.ts): the key that says whether a saved vector still fits its item, and
// the growth of the index's link arrays.

/** FNV-1a (32-bit) over the text and partition: equal keys mean the vector can be kept; never 0. */
export function vectorKey(text: string, partition: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ 0x1f, 0x01000193);
  for (let i = 0; i < partition.length; i++) h = Math.imul(h ^ partition.charCodeAt(i), 0x01000193);
  return (h >>> 0) || 1;
}

export function growLinks(a: Int32Array, cap: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(cap).fill(-1);
  next.set(a);
  return next;
}
