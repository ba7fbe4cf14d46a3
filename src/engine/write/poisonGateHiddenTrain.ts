// Trainer side of the poison gate's hidden layer (poisonGateHidden.ts; gate9): float64 parameters, AdaGrad steps in a
// fixed order, seeded initialisation, int8 quantisation. Used by poisonGateTrain.ts only; deterministic like it.
import { clampOutput, HiddenLayer, hiddenPre, INPUT_BIT } from './poisonGateHidden';
import { prng } from '../prng';

export interface RawHidden {
  bits: number;
  units: number;
  input: number;
  cap: number;
  /** Output of the last rawHiddenLogit before the clamp (a clamped output passes no gradient). */
  last: number;
  /** Table (bucket-major), unit biases, output weights, and their AdaGrad accumulators. */
  w: Float64Array; g2w: Float64Array;
  b: Float64Array; g2b: Float64Array;
  v: Float64Array; g2v: Float64Array;
  pre: Float64Array;
}

/** Seeded initialisation: small uniform table, unit biases 0.1 (units start active), output weights ±0.3 alternating in sign. */
export function initHidden(bits: number, units: number, input: number, cap: number, seed: number): RawHidden {
  const rand = prng(seed ^ 0x5eed);
  const n = 2 ** bits * units;
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) w[i] = (rand() - 0.5) * 0.1;
  const v = new Float64Array(units);
  for (let j = 0; j < units; j++) v[j] = (j % 2 === 0 ? 0.3 : -0.3) * (0.5 + rand());
  return {
    bits, units, input, cap, last: 0, w, g2w: new Float64Array(n).fill(1e-8), b: new Float64Array(units).fill(0.1), g2b: new Float64Array(units).fill(1e-8),
    v, g2v: new Float64Array(units).fill(1e-8), pre: new Float64Array(units),
  };
}

/** The hidden layer's logit contribution for one window (float parameters); leaves the pre-activations in h.pre. */
export function rawHiddenLogit(set: number[], h: RawHidden): number {
  hiddenPre(set, h.w, 1, h.b, h.bits, h.units, h.input, h.pre);
  let z = 0;
  for (let j = 0; j < h.units; j++) if (h.pre[j] > 0) z += h.v[j] * h.pre[j];
  h.last = z;
  return clampOutput(z, h.cap);
}

/** One AdaGrad step for a window whose loss gradient w.r.t. the logit is g; h.pre must be this window's (rawHiddenLogit). */
export function hiddenStep(set: number[], h: RawHidden, g: number, lr: number, l2: number): void {
  if (h.cap > 0 && Math.abs(h.last) >= h.cap) return; // clamped: the output does not move with the parameters
  const units = h.units, mask = 2 ** h.bits - 1, need = h.input === 1 ? INPUT_BIT : 0;
  const norm = 1 / Math.sqrt(Math.max(1, set.length));
  const d = new Float64Array(units); // gradient w.r.t. each unit's pre-activation
  for (let j = 0; j < units; j++) {
    const a = h.pre[j];
    if (a <= 0) continue;
    d[j] = g * h.v[j];
    const gv = g * a + l2 * h.v[j];
    h.g2v[j] += gv * gv;
    h.v[j] -= (lr * gv) / Math.sqrt(h.g2v[j]);
    h.g2b[j] += d[j] * d[j];
    h.b[j] -= (lr * d[j]) / Math.sqrt(h.g2b[j]);
  }
  for (const f of set) {
    if ((f & need) !== need) continue;
    const base = (f & mask) * units;
    const s = f & 0x80000000 ? -norm : norm;
    for (let j = 0; j < units; j++) {
      if (d[j] === 0) continue;
      const k = base + j;
      const gi = d[j] * s + l2 * h.w[k];
      h.g2w[k] += gi * gi;
      h.w[k] -= (lr * gi) / Math.sqrt(h.g2w[k]);
    }
  }
}

/** int8 quantisation of the table (one scale); unit biases and output weights as float32. */
export function quantiseHidden(h: RawHidden): Omit<HiddenLayer, 'sha256'> {
  let max = 0;
  for (const x of h.w) max = Math.max(max, Math.abs(x));
  const scale = Math.fround(max > 0 ? max / 127 : 1);
  const q = new Int8Array(h.w.length);
  for (let i = 0; i < h.w.length; i++) q[i] = Math.max(-127, Math.min(127, Math.round(h.w[i] / scale)));
  return { bits: h.bits, units: h.units, input: h.input, cap: h.cap, scale, unitBias: Float32Array.from(h.b), outWeight: Float32Array.from(h.v), weights: q };
}
