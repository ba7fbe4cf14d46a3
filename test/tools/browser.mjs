// The headless browser that opens the VS Code workbench (integration tier, .vsix check) and the
// dashboard bundle (unit tier). By default it is the Chromium headless shell shipped *inside* the
// npm package `@sparticuz/chromium` (a devDependency: the binary is in the package as a Brotli file,
// nothing is downloaded at install or run time). It is unpacked once into the tools folder
// (`.tools/chromium-<version>/`, or $MEMORY_TOOLS_DIR). A system Chromium stays usable:
// MEMORY_CHROMIUM=/path/to/chromium (e.g. Debian's /usr/lib/chromium/chromium).
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TOOLS } from './installTools.mjs';

const require = createRequire(import.meta.url);

/** Flags every launch gets: no network chatter on a closed machine, no sandbox as root. */
const COMMON_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
];
/**
 * The packaged headless shell runs with the same flags, through playwright-core. (Not the package's
 * own serverless flags: `--single-process` kills the browser when a page closes, and
 * `--disable-web-security` would defeat the dashboard's CSP test.)
 */
const PACKAGED_ARGS = ['--font-render-hinting=none'];

export class BrowserUnavailable extends Error {
  /** @param {string} what the missing piece, @param {string} fix the exact command or action */
  constructor(what, fix) {
    super(`${what}. Fix: ${fix}`);
    this.what = what;
    this.fix = fix;
  }
}

/** Version of the packaged Chromium (null when the package is not installed). */
export function packagedVersion() {
  // Its `exports` hide package.json: read it beside the resolved entry point.
  try { return JSON.parse(readFileSync(join(dirname(require.resolve('@sparticuz/chromium')), '..', '..', 'package.json'), 'utf8')).version; } catch { return null; }
}

export function packagedDir(version = packagedVersion()) {
  return join(TOOLS, `chromium-${version}`);
}

/** Where the browser will come from, without unpacking anything (used by the preflight). */
export function browserSource() {
  const system = process.env.MEMORY_CHROMIUM;
  if (system) {
    if (!existsSync(system)) {
      throw new BrowserUnavailable(`the browser named by MEMORY_CHROMIUM (${system}) does not exist`,
        'unset MEMORY_CHROMIUM to use the Chromium from npm (`unset MEMORY_CHROMIUM`), or point it at a Chromium binary');
    }
    try { accessSync(system, constants.X_OK); } catch {
      throw new BrowserUnavailable(`the browser named by MEMORY_CHROMIUM (${system}) is not executable`, `chmod +x ${system}`);
    }
    return { kind: 'system', executablePath: system };
  }
  const version = packagedVersion();
  if (!version) {
    throw new BrowserUnavailable('the npm package @sparticuz/chromium (the test browser) is not installed', 'npm install');
  }
  const dir = packagedDir(version);
  return { kind: 'packaged', version, dir, executablePath: join(dir, 'chromium'), unpacked: existsSync(join(dir, 'ready')) };
}

/**
 * Unpacks the packaged browser into the tools folder once (into a temp folder, renamed when
 * complete, so an interrupted unpack never leaves a half-written binary behind).
 */
async function unpack(version, dir) {
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  // The package unpacks into os.tmpdir(), read at call time: point it at our folder for the call.
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    const { default: Chromium } = await import('@sparticuz/chromium');
    Chromium.setGraphicsMode = false;
    await Chromium.executablePath();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR; else process.env.TMPDIR = saved;
  }
  if (!existsSync(join(tmp, 'chromium'))) throw new Error(`unpacking @sparticuz/chromium ${version} produced no binary in ${tmp}`);
  // Its fonts (Open Sans) plus the system's, so pages render text on a machine without fonts.
  writeFileSync(join(tmp, 'fonts.conf'), `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <dir>${join(dir, 'fonts')}</dir>
  <cachedir>${join(dir, 'fonts-cache')}</cachedir>
</fontconfig>
`);
  writeFileSync(join(tmp, 'ready'), `${version}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
}

/**
 * The browser to launch: `{ executablePath, args, env }` for playwright-core's `chromium.launch`.
 * `env` is merged over the caller's environment.
 */
export async function ensureBrowser() {
  const src = browserSource();
  if (src.kind === 'system') return { executablePath: src.executablePath, args: COMMON_ARGS, env: {} };
  if (!src.unpacked) {
    const t0 = Date.now();
    await unpack(src.version, src.dir);
    console.log(`[tools] unpacked Chromium ${src.version} (from npm) into ${src.dir} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  return {
    executablePath: src.executablePath,
    args: [...COMMON_ARGS, ...PACKAGED_ARGS],
    env: { FONTCONFIG_FILE: join(src.dir, 'fonts.conf') },
  };
}

/**
 * `node test/tools/browser.mjs` unpacks and prints the path; `--json` prints the launch options
 * (for the CommonJS unit tests, which cannot import this ES module).
 */
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    const b = await ensureBrowser();
    console.log(process.argv.includes('--json') ? JSON.stringify(b) : b.executablePath);
  } catch (e) {
    if (!(e instanceof BrowserUnavailable)) throw e;
    console.error(`browser: ${e.message}`);
    process.exit(3);
  }
}
