import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { VERIFICATION_SCHEMES } from '@wts/contracts';

/** Where the static Config page lives in the repository (plain files, no build step). */
const UI_RELATIVE_DIR = join('apps', 'ingress', 'ui');

/** The two pages; every other file is an asset under `assets/`, or a piece of a page under `partials/`. */
export const UI_PAGES = { list: 'index.html', config: 'config.html' } as const;

/**
 * `<!-- include: name.html -->` alone on a line of a page: that line is replaced by the file
 * `partials/name.html` (the head, site header and sign-in form, audit entries and dialog both pages
 * show; the Config page's longer sections), once at start-up.
 */
const PARTIAL_INCLUDE = /^[ \t]*<!-- include: ([a-z0-9][a-z0-9-]*\.html) -->[ \t]*$/gm;

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

/** Asset names the server will ever answer: lower-case words, one extension it knows. */
export const ASSET_NAME = /^[a-z0-9][a-z0-9-]*\.(js|css|svg)$/;

export interface UiFile {
  readonly body: Buffer;
  readonly contentType: string;
}

export interface UiFiles {
  readonly pages: { readonly list: UiFile; readonly config: UiFile };
  /** By file name; only names matching ASSET_NAME, read once. */
  readonly assets: ReadonlyMap<string, UiFile>;
  /** Libraries the page imports, from node_modules (served under /ui/assets/vendor/), read once. */
  readonly vendor: ReadonlyMap<string, UiFile>;
}

/**
 * Assets made at start-up from the code, not read from a file: the list of verification schemes
 * (sender-schemes.js re-exports it), so the page offers exactly the schemes @wts/contracts knows.
 */
export const GENERATED_ASSETS: Readonly<Record<string, string>> = {
  'verification-schemes.js':
    '// Made at start-up from VERIFICATION_SCHEMES in @wts/contracts (apps/ingress/src/ui/ui-assets.ts).\n' +
    `export const VERIFICATION_SCHEMES = ${JSON.stringify(VERIFICATION_SCHEMES)};\n`,
};

/**
 * The page's third-party modules, by the name it imports them as: a package and the file of it
 * that is a browser ES module. No CDN: the installed package is the one served.
 */
const VENDOR_MODULES: Readonly<Record<string, { readonly packageName: string; readonly file: string }>> = {
  // OAuth 2 / OpenID Connect client (authorization code with PKCE, refresh, discovery).
  'oauth4webapi.js': { packageName: 'oauth4webapi', file: join('build', 'index.js') },
};

/**
 * Searches upward from `start` for `apps/ingress/ui`: works from `apps/ingress/src/ui` (ts-jest)
 * and from `dist/apps/ingress/src/ui` (after `npm run build`, run from the repository).
 */
export function findUiDirectory(start: string = __dirname): string {
  let dir = start;
  for (;;) {
    const candidate = join(dir, UI_RELATIVE_DIR);
    if (existsSync(join(candidate, UI_PAGES.list))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`the Config page files (${UI_RELATIVE_DIR}) were not found above ${start}`);
    dir = parent;
  }
}

/** A page as served: its file with each include line replaced by its partial (a missing partial throws). */
export function composeUiPage(root: string, page: string): string {
  return readFileSync(join(root, page), 'utf8').replace(PARTIAL_INCLUDE, (_line, partial: string) =>
    readFileSync(join(root, 'partials', partial), 'utf8').replace(/\n$/, ''),
  );
}

/** Reads the pages and the allow-listed assets into memory, once. */
export function loadUiFiles(root: string = findUiDirectory()): UiFiles {
  const read = (path: string, extension: string): UiFile => ({ body: readFileSync(path), contentType: CONTENT_TYPES[extension] as string });
  const page = (name: string): UiFile => ({
    body: Buffer.from(composeUiPage(root, name), 'utf8'),
    contentType: CONTENT_TYPES.html as string,
  });
  const assets = new Map<string, UiFile>();
  for (const name of readdirSync(join(root, 'assets')).sort()) {
    const match = ASSET_NAME.exec(name);
    if (match) assets.set(name, read(join(root, 'assets', name), match[1] as string));
  }
  for (const [name, source] of Object.entries(GENERATED_ASSETS))
    assets.set(name, { body: Buffer.from(source, 'utf8'), contentType: CONTENT_TYPES.js as string });
  return {
    pages: { list: page(UI_PAGES.list), config: page(UI_PAGES.config) },
    assets,
    vendor: loadVendorModules(),
  };
}

/** Each vendor module's file, as installed; its source-map comment left out (the map is not served). */
function loadVendorModules(): ReadonlyMap<string, UiFile> {
  const modules = new Map<string, UiFile>();
  for (const [name, { packageName, file }] of Object.entries(VENDOR_MODULES)) {
    const packageDir = dirname(require.resolve(`${packageName}/package.json`));
    const source = readFileSync(join(packageDir, file), 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
    modules.set(name, { body: Buffer.from(source, 'utf8'), contentType: CONTENT_TYPES.js as string });
  }
  return modules;
}
