// Raw-record codec (SPEC R-WRITE-3): compress/decompress one message or one flush batch, and the content
// hash that names a raw row. Every blob starts with a one-byte format tag, so the dictionary or algorithm
// can change later without breaking rows already written; decoding never guesses.
// Text is carried as UTF-8 of the string with lone surrogates preserved byte-exactly via WTF-8-style
// escaping (see encodeText), so decompress(compress(s)) === s for every JS string.

import { createHash } from 'node:crypto';
import * as zlib from 'node:zlib';
import { MemoryError } from '../errors';

/** Format tags (first byte of every blob). Never reuse a number. */
export const RAW_FORMAT = {
  stored: 0,
  deflateDictV1: 1,
  brotli: 2,
  batchDeflateDictV1: 3,
} as const;

/**
 * Preset dictionary for deflate (zlib's `dictionary` option): frequent conversational and developer-chat
 * phrases in English and German (plus a few Hungarian, Spanish, French). Written by hand from general
 * language knowledge, not drawn from the benchmark data it is measured on. Deflate can reference up to
 * 32 KiB of it; phrases used most go last (shorter distances).
 */
const DICT_TEXT = [
  // fr / es / hu
  "je pense que c'est une bonne idée, merci pour ton aide. est-ce que tu peux regarder ça ? on peut faire ça demain. ",
  'creo que es una buena idea, gracias por tu ayuda. ¿puedes revisar esto? podemos hacerlo mañana. ',
  'szerintem ez jó ötlet, köszönöm a segítséget. meg tudnád nézni? holnap megcsinálhatjuk. ',
  // de
  'Ich glaube, das ist eine gute Idee. Danke für deine Hilfe! Kannst du dir das mal anschauen? Das können wir morgen machen. ',
  'Wir haben entschieden, dass wir das so machen. Das Problem ist, dass der Test fehlschlägt, weil die Konfiguration nicht stimmt. ',
  'Ich habe gerade gesehen, dass es nicht funktioniert. Was meinst du? Ja, genau. Nein, das ist nicht das, was ich meine. ',
  'Hast du schon mal darüber nachgedacht? Wie wäre es, wenn wir die Funktion ändern und dann die Datei neu laden? ',
  // dev chat (en)
  '```ts\nimport { } from \'./\';\nexport function (): void {\n  const  = await ;\n  return ;\n}\n```\n',
  '```bash\nnpm run build && npm test\ngit commit -m ""\n```\n',
  'The error message says that the function is not defined. Can you check the logs and the configuration file? ',
  'I think the problem is that the test is failing because the build is broken. Let me know if you need anything else. ',
  'Here is the updated version of the code. This should fix the issue. You can run the following command to install the dependencies. ',
  'Sure! Here are a few options: 1. 2. 3. The main difference is that the first one is faster, but the second one is easier to maintain. ',
  // everyday conversation (en)
  "Hey! Good to see you! How have you been? I'm doing great, thanks for asking. What about you? ",
  "That's awesome! I'm so happy for you. That sounds like a lot of fun. What was the best part? ",
  "Thanks! It was really nice. I've been thinking about it a lot lately. It made me feel so grateful. ",
  "Wow, that's really cool! I love that. It's so important to take care of yourself and spend time with family and friends. ",
  "I'm really proud of you. Have you thought about what you want to do next? I'd love to hear more about it. ",
  "Yeah, I know what you mean. It's been a while since we last talked. I just wanted to check in and see how you're doing. ",
  "That's so sweet! It must have been an amazing experience. I can't wait to see what you do next. Take care! ",
  'Thank you so much for sharing that with me. It means a lot. I really appreciate your support and I feel the same way. ',
  "What do you think? Do you want to do something together this weekend? Let me know what works for you. ",
  "I'm so glad you had a great time! It's really inspiring to see how much you've grown. Keep it up! ",
].join('');
const DICT = Buffer.from(DICT_TEXT, 'utf8');

// Deflate level 9: raw rows are written once and read rarely; at flush sizes (~32 kB) level 9 costs < 2 ms.
const DEFLATE_OPTS: zlib.ZlibOptions = { level: 9, memLevel: 9, dictionary: DICT };

/**
 * JS string → bytes, lossless for lone surrogates: well-formed text is plain UTF-8; a lone surrogate is
 * written as its 3-byte generalised UTF-8 form (WTF-8), which TextDecoder would otherwise replace.
 */
// In /u mode a paired surrogate is one code point, so \p{Cs} matches only lone halves.
const LONE_SURROGATE = /\p{Cs}/u;

export function encodeText(s: string): Buffer {
  if (!LONE_SURROGATE.test(s)) return Buffer.from(s, 'utf8');
  const parts: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        parts.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
        i++;
        continue;
      }
    }
    if (c < 0x80) parts.push(c);
    else if (c < 0x800) parts.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else parts.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63)); // includes lone surrogates
  }
  return Buffer.from(parts);
}

/** Inverse of encodeText (accepts generalised UTF-8 with surrogate code points). */
export function decodeText(b: Buffer): string {
  // Fast path: well-formed UTF-8 (no ED A0..BF lead = no encoded surrogate).
  if (!hasEncodedSurrogate(b)) return b.toString('utf8');
  let out = '';
  for (let i = 0; i < b.length; ) {
    const x = b[i];
    if (x < 0x80) { out += String.fromCharCode(x); i++; }
    else if (x >= 0xf0) {
      const cp = ((x & 7) << 18) | ((b[i + 1] & 63) << 12) | ((b[i + 2] & 63) << 6) | (b[i + 3] & 63);
      out += String.fromCodePoint(cp);
      i += 4;
    } else if (x >= 0xe0) { out += String.fromCharCode(((x & 15) << 12) | ((b[i + 1] & 63) << 6) | (b[i + 2] & 63)); i += 3; }
    else { out += String.fromCharCode(((x & 31) << 6) | (b[i + 1] & 63)); i += 2; }
  }
  return out;
}

function hasEncodedSurrogate(b: Buffer): boolean {
  for (let i = b.indexOf(0xed); i !== -1 && i + 1 < b.length; i = b.indexOf(0xed, i + 1)) if (b[i + 1] >= 0xa0) return true;
  return false;
}

/** Compress one message for the raw record. Tiny or incompressible inputs are stored as-is. */
export function compressRaw(text: string): Buffer {
  const bytes = encodeText(text);
  const packed = zlib.deflateRawSync(bytes, DEFLATE_OPTS);
  return packed.length < bytes.length
    ? Buffer.concat([Buffer.of(RAW_FORMAT.deflateDictV1), packed])
    : Buffer.concat([Buffer.of(RAW_FORMAT.stored), bytes]);
}

/** Inverse of compressRaw. Throws MemoryError E_CORRUPT on an unknown tag or a damaged blob. */
export function decompressRaw(blob: Uint8Array): string {
  const b = Buffer.isBuffer(blob) ? blob : Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
  if (b.length === 0) throw new MemoryError('E_CORRUPT', 'raw record blob is empty');
  try {
    switch (b[0]) {
      case RAW_FORMAT.stored: return decodeText(b.subarray(1));
      case RAW_FORMAT.deflateDictV1: return decodeText(zlib.inflateRawSync(b.subarray(1), { dictionary: DICT }));
      case RAW_FORMAT.brotli: return decodeText(zlib.brotliDecompressSync(b.subarray(1)));
      default: break;
    }
  } catch (e) {
    throw new MemoryError('E_CORRUPT', 'raw record blob does not decompress', { tag: b[0] });
  }
  throw new MemoryError('E_CORRUPT', 'raw record blob has an unknown format tag', { tag: b[0] });
}

/**
 * One blob for a whole flush (R-WRITE-3 buffers ~8,000 tokens per conversation): far better ratios than
 * per-message blobs because the messages share context. Layout after the tag: varint count, varint byte
 * length per message, then the deflated concatenation.
 */
export function compressBatch(texts: readonly string[]): Buffer {
  const bufs = texts.map(encodeText);
  const header: number[] = [];
  writeVarint(header, bufs.length);
  for (const x of bufs) writeVarint(header, x.length);
  const packed = zlib.deflateRawSync(Buffer.concat(bufs), DEFLATE_OPTS);
  return Buffer.concat([Buffer.of(RAW_FORMAT.batchDeflateDictV1), Buffer.from(header), packed]);
}

/** Inverse of compressBatch. */
export function decompressBatch(blob: Uint8Array): string[] {
  const b = Buffer.isBuffer(blob) ? blob : Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
  if (b.length === 0 || b[0] !== RAW_FORMAT.batchDeflateDictV1) throw new MemoryError('E_CORRUPT', 'not a raw batch blob');
  try {
    const pos = { i: 1 };
    const n = readVarint(b, pos);
    const lens: number[] = [];
    for (let k = 0; k < n; k++) lens.push(readVarint(b, pos));
    const body = zlib.inflateRawSync(b.subarray(pos.i), { dictionary: DICT });
    const out: string[] = [];
    let off = 0;
    for (const len of lens) {
      if (off + len > body.length) throw new Error('short');
      out.push(decodeText(body.subarray(off, off + len)));
      off += len;
    }
    if (off !== body.length) throw new Error('trailing');
    return out;
  } catch {
    throw new MemoryError('E_CORRUPT', 'raw batch blob does not decompress');
  }
}

function writeVarint(out: number[], n: number): void {
  while (n >= 0x80) { out.push((n & 0x7f) | 0x80); n = Math.floor(n / 128); }
  out.push(n);
}

function readVarint(b: Buffer, pos: { i: number }): number {
  let n = 0;
  let mul = 1;
  for (;;) {
    if (pos.i >= b.length || mul > 2 ** 35) throw new Error('varint');
    const x = b[pos.i++];
    n += (x & 0x7f) * mul;
    if (x < 0x80) return n;
    mul *= 128;
  }
}

/** sha256 of the message bytes (encodeText), lower-case hex. */
export function contentHash(text: string): string {
  return createHash('sha256').update(encodeText(text)).digest('hex');
}

// 32 hex chars = 128 bits: collisions are out of reach for any single-user store, and ids stay short.
export const CONTENT_ADDRESS_HEX = 32;

/** A message's content address: the first 128 bits of contentHash — its raw-record key (schema v4) and its `rw:` id. */
export function contentAddress(text: string): string {
  return contentHash(text).slice(0, CONTENT_ADDRESS_HEX);
}

/** The `rw:` id of a message: its content address, so a repeated message maps to one row. */
export function rawId(text: string): string {
  return `rw:${contentAddress(text)}`;
}
