import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Where the static Config page lives in the repository (plain files, no build step). */
const UI_RELATIVE_DIR = join('apps', 'ingress', 'ui');

/** The two pages; every other file is an asset under `assets/`. */
export const UI_PAGES = { list: 'index.html', config: 'config.html' } as const;

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
}

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

/** Reads the pages and the allow-listed assets into memory, once. */
export function loadUiFiles(root: string = findUiDirectory()): UiFiles {
  const read = (path: string, extension: string): UiFile => ({ body: readFileSync(path), contentType: CONTENT_TYPES[extension] as string });
  const assets = new Map<string, UiFile>();
  for (const name of readdirSync(join(root, 'assets')).sort()) {
    const match = ASSET_NAME.exec(name);
    if (match) assets.set(name, read(join(root, 'assets', name), match[1] as string));
  }
  return {
    pages: { list: read(join(root, UI_PAGES.list), 'html'), config: read(join(root, UI_PAGES.config), 'html') },
    assets,
  };
}
