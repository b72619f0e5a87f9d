// What the tarball must hold: every file that package.json's exports, types, main and bin name,
// and nothing else than the built package (no sources, tests, maps or build configs).
import { existsSync, readFileSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { REPO } from '../runtimes/processes.js';

export interface PackResult {
  file: string;
  files: string[];
  summary: string;
}

interface NpmPackEntry {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}

/** Anything the package may ship; everything else in the tarball is a mistake. */
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^dist\/.+\.(js|d\.ts)$/,
  // The pages the README links to, so that its links work on the npm page and in node_modules.
  /^CHANGELOG\.md$/,
  /^docs\/[^/]+\.md$/,
  /^bench\/README\.md$/,
];
/** Whether the package may ship `path` (relative to the repository root). */
export function mayShip(path: string): boolean {
  return ALLOWED.some((pattern) => pattern.test(path));
}

/** Shipped only as JavaScript: the CLI is a bin, not a typed entry point. */
const NO_TYPES_UNDER = 'dist/cli/';

function targetsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(targetsOf);
  return [];
}

/**
 * The files the README links to by relative path that exist in the repository (pages still being
 * written and the generated API reference are not files yet): each must ship with the package.
 */
export function readmeLinkedFiles(): string[] {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8').replace(/```[\s\S]*?```/g, '');
  const targets = [...readme.matchAll(/\]\(([^)\s#]+)(?:#[^)\s]*)?\)/g)].map((m) => m[1]!);
  return [
    ...new Set(
      targets
        .filter((target) => !/^[a-z]+:/.test(target))
        .map((target) => normalize(target))
        .filter((path) => existsSync(join(REPO, path)) && !path.startsWith('docs/api/')),
    ),
  ].sort();
}

/** Parses `npm pack --json` output and checks the file list; throws with every problem found. */
export function checkTarball(packJson: string, dir: string): PackResult {
  const [entry] = JSON.parse(packJson) as NpmPackEntry[];
  if (!entry) throw new Error('npm pack printed no tarball');
  const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const files = entry.files.map((f) => f.path).sort();
  const shipped = new Set(files);
  const problems: string[] = [];

  // The license text goes with the code (Apache-2.0 asks for it), the README is the npm page.
  const needed = [
    'LICENSE',
    'README.md',
    ...[manifest.main, manifest.types, manifest.exports, manifest.bin].flatMap(targetsOf),
  ];
  for (const target of needed) {
    const path = target.replace(/^\.\//, '');
    if (!shipped.has(path)) problems.push(`${target} is needed, the tarball lacks it`);
  }
  for (const path of readmeLinkedFiles()) {
    if (!shipped.has(path)) problems.push(`README.md links to ${path}, the tarball lacks it`);
  }
  for (const path of files) {
    if (!mayShip(path)) problems.push(`unexpected file ${path}`);
    if (path.startsWith(NO_TYPES_UNDER) && path.endsWith('.d.ts'))
      problems.push(`CLI declarations ${path}`);
  }
  // Every compiled module has its declarations next to it (the CLI excepted), so no import in a
  // shipped .d.ts can point at a missing file.
  for (const path of files) {
    if (!path.endsWith('.js') || path.startsWith(NO_TYPES_UNDER)) continue;
    const types = path.replace(/\.js$/, '.d.ts');
    if (!shipped.has(types)) problems.push(`${path} has no ${types}`);
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));

  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
  const summary = [
    `${entry.filename}: ${files.length} files, packed ${kb(entry.size)}, unpacked ${kb(entry.unpackedSize)}`,
    `bin and every exports/types target present; no maps, sources or tests`,
  ].join('\n');
  return { file: join(dir, entry.filename), files, summary };
}
