// Hidden layer of the poison gate's learned stage (gate9, issue #14): a few ReLU units over the same hashed features
// as the linear table (poisonGateModel.ts), added to its logit — a "wide and deep" model. The linear part weighs each
// n-gram on its own; it cannot learn that "please remember …" is harmless in a chat between friends and an attack
// when it goes with a bank account, a standing scope and an assistant being addressed. A unit that fires on such a
// conjunction can. Pure, synchronous, deterministic (int8 table × one scale, float32 unit biases and output weights).
//
// File format (little-endian), base64 in poisonGateHiddenWeights.ts:
//   0  magic "PGH1" | 4 u32 version | 8 u32 log2(buckets) | 12 u32 units | 16 f32 scale | 20 u32 input (0 = every
//   feature, 1 = structural features only: cue classes and their pairs, see STRUCTURAL in poisonGateModel.ts) | 24 f32 cap:
//   the layer's output is clamped to ±cap logits (0 = no clamp) | 28..31 0
//   32 32-byte SHA-256 of everything from byte 64 | 64 f32 unitBias[units] | f32 outWeight[units]
//   int8 table[buckets × units] (bucket-major: a feature's units are adjacent)
// A feature's bucket is the low `bits` bits of its id (the linear table's bucket masked further), its sign the id's
// top bit, as in the linear table.
import { createHash } from 'node:crypto';
import { HEADER_BYTES, openHeader, verifiedBodyHash } from './gateWeightsFile';

export const HIDDEN_MAGIC = 'PGH1';
export const HIDDEN_VERSION = 1;
const NAMES = { file: 'file', kind: 'a hidden-layer file', version: 'version', checksum: 'checksum', body: 'body' };
/** Bit 30 of a feature id: a structural feature (STRUCTURAL in poisonGateModel.ts, which imports this module). */
export const INPUT_BIT = 0x40000000;

export class HiddenLayerError extends Error {
  constructor(message: string) {
    super(`poison gate hidden layer: ${message}`);
    this.name = 'HiddenLayerError';
  }
}

export interface HiddenLayer {
  bits: number;
  units: number;
  /** Real value of one int8 step of the table. */
  scale: number;
  /** 0: every feature feeds the units; 1: only structural ones (bit 30 of the id). */
  input: number;
  /** The layer's output is clamped to [−cap, cap] (0: not clamped): it moves the linear score, it cannot outweigh it. */
  cap: number;
  unitBias: Float32Array;
  outWeight: Float32Array;
  /** int8 table, bucket-major. */
  weights: Int8Array;
  /** SHA-256 (hex) of the file from byte 64, as recorded in the header and verified on load. */
  sha256: string;
}

/** Parses and verifies a hidden-layer file; throws HiddenLayerError naming what is wrong. */
export function loadHiddenLayer(bytes: Uint8Array): HiddenLayer {
  const dv = openHeader(bytes, HIDDEN_MAGIC, HIDDEN_VERSION, NAMES, (m) => new HiddenLayerError(m));
  const bits = dv.getUint32(8, true);
  const units = dv.getUint32(12, true);
  if (bits < 8 || bits > 16) throw new HiddenLayerError(`bucket bits ${bits} out of range 8–16`);
  if (units < 1 || units > 64) throw new HiddenLayerError(`units ${units} out of range 1–64`);
  const want = HEADER_BYTES + 8 * units + 2 ** bits * units;
  if (bytes.length !== want) throw new HiddenLayerError(`file is ${bytes.length} bytes, expected ${want} for 2^${bits} buckets × ${units} units (truncated or padded)`);
  const scale = dv.getFloat32(16, true);
  const input = dv.getUint32(20, true);
  if (input !== 0 && input !== 1) throw new HiddenLayerError(`unknown input selection ${input}`);
  const cap = dv.getFloat32(24, true);
  if (!Number.isFinite(cap) || cap < 0) throw new HiddenLayerError('cap must be a finite number ≥ 0');
  if (!Number.isFinite(scale) || !(scale > 0)) throw new HiddenLayerError('scale must be a positive finite number');
  const got = verifiedBodyHash(bytes, NAMES, (m) => new HiddenLayerError(m));
  const unitBias = new Float32Array(units), outWeight = new Float32Array(units);
  for (let j = 0; j < units; j++) {
    unitBias[j] = dv.getFloat32(HEADER_BYTES + 4 * j, true);
    outWeight[j] = dv.getFloat32(HEADER_BYTES + 4 * (units + j), true);
    if (!Number.isFinite(unitBias[j]) || !Number.isFinite(outWeight[j])) throw new HiddenLayerError(`unit ${j} has a non-finite weight`);
  }
  const start = bytes.byteOffset + HEADER_BYTES + 8 * units;
  const weights = new Int8Array(bytes.buffer.slice(start, start + 2 ** bits * units));
  return { bits, units, scale, input, cap, unitBias, outWeight, weights, sha256: got };
}

/** Serialises a hidden layer (the trainer's output) to the file format. */
export function encodeHiddenLayer(h: Omit<HiddenLayer, 'sha256'>): Uint8Array {
  const n = 2 ** h.bits * h.units;
  if (h.weights.length !== n || h.unitBias.length !== h.units || h.outWeight.length !== h.units) throw new HiddenLayerError('table or unit vectors do not match bits × units');
  const out = new Uint8Array(HEADER_BYTES + 8 * h.units + n);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < 4; i++) out[i] = HIDDEN_MAGIC.charCodeAt(i);
  dv.setUint32(4, HIDDEN_VERSION, true);
  dv.setUint32(8, h.bits, true);
  dv.setUint32(12, h.units, true);
  dv.setFloat32(16, h.scale, true);
  dv.setUint32(20, h.input, true);
  dv.setFloat32(24, h.cap, true);
  for (let j = 0; j < h.units; j++) {
    dv.setFloat32(HEADER_BYTES + 4 * j, h.unitBias[j], true);
    dv.setFloat32(HEADER_BYTES + 4 * (h.units + j), h.outWeight[j], true);
  }
  out.set(new Uint8Array(h.weights.buffer, h.weights.byteOffset, n), HEADER_BYTES + 8 * h.units);
  out.set(createHash('sha256').update(out.subarray(HEADER_BYTES)).digest(), 32);
  return out;
}

/** A hidden layer's tag in the linear weights' header: the first four bytes of its SHA-256 (never 0). */
export function hiddenTagOf(h: HiddenLayer): number {
  return Buffer.from(h.sha256.slice(0, 8), 'hex').readUInt32LE(0) || 1;
}

let acc = new Float64Array(0);

/**
 * Pre-activations of the units for one window's feature ids into `pre` (length units): unitBias + scale·Σ±table / √n,
 * the same 1/√n normalisation as the linear part. Shared by the runtime (int8 table) and the trainer (float table).
 */
export function hiddenPre(set: number[], table: ArrayLike<number>, scale: number, unitBias: ArrayLike<number>, bits: number, units: number, input: number, pre: Float64Array): void {
  const mask = 2 ** bits - 1;
  const need = input === 1 ? INPUT_BIT : 0;
  for (let j = 0; j < units; j++) pre[j] = 0;
  for (let i = 0; i < set.length; i++) {
    const f = set[i];
    if ((f & need) !== need) continue;
    const base = (f & mask) * units;
    if (f & 0x80000000) for (let j = 0; j < units; j++) pre[j] -= table[base + j];
    else for (let j = 0; j < units; j++) pre[j] += table[base + j];
  }
  const norm = scale / Math.sqrt(Math.max(1, set.length));
  for (let j = 0; j < units; j++) pre[j] = unitBias[j] + norm * pre[j];
}

/** The hidden layer's contribution to one window's logit: Σ outWeight·ReLU(pre), clamped to ±cap. */
export function hiddenLogit(set: number[], h: HiddenLayer): number {
  if (acc.length !== h.units) acc = new Float64Array(h.units);
  hiddenPre(set, h.weights, h.scale, h.unitBias, h.bits, h.units, h.input, acc);
  let z = 0;
  for (let j = 0; j < h.units; j++) if (acc[j] > 0) z += h.outWeight[j] * acc[j];
  return clampOutput(z, h.cap);
}

/** The layer's output clamped to ±cap (cap 0: unclamped). */
export function clampOutput(z: number, cap: number): number {
  return cap > 0 ? Math.max(-cap, Math.min(cap, z)) : z;
}
