// Stands in for `onnxruntime-node` inside the esbuild bundles (dist/*.js): onnxruntime-web's WASM
// runtime, one portable build for every OS/CPU, loaded from the files build.mjs copies next to the
// bundle — never from a CDN (R-SEC-4). Plain JS like sharpStub.js: it is only ever bundled.
const path = require('node:path');
const { readFile } = require('node:fs/promises');
const { pathToFileURL } = require('node:url');
const ort = require('onnxruntime-web/wasm');

// transformers.js points wasmPaths at cdn.jsdelivr.net unless it is already set: set it first.
// A string prefix (not {wasm, mjs}) also keeps transformers.js from fetching the files into its cache.
ort.env.wasm.wasmPaths = pathToFileURL(__dirname + path.sep).href;
// One thread: the extension host shares the machine with the editor, and the threaded build's
// workers do not start from inside a bundle (measured: session creation fails with numThreads 2).
ort.env.wasm.numThreads = 1;
ort.env.wasm.proxy = false;

// transformers.js hands the native runtime a file path in Node; the WASM runtime would fetch() it.
// Read the file and pass the bytes instead.
const create = ort.InferenceSession.create.bind(ort.InferenceSession);
async function createSession(model, ...rest) {
  if (typeof model === 'string' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(model)) model = new Uint8Array(await readFile(model));
  return create(model, ...rest);
}

module.exports = { ...ort, InferenceSession: Object.assign(Object.create(ort.InferenceSession), { create: createSession }) };
