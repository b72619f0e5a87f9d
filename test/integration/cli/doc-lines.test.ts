// Every `zkts` line of the shipped pages (README, CHANGELOG, docs/*.md, bench/README.md) is run
// here against the real server: the command lines of their shell blocks, the `$ zkts` lines of
// their transcripts, and the inline ones with a path or a placeholder (PATH, CMD). A documented
// line that zkts refuses (as `zkts elect --timeout 0 PATH -- CMD` was) fails this test.
//
// Each line runs as written, through `sh -c`, in a fresh chroot that holds the nodes the pages
// use, with only these changes: the server list becomes the test server's (a /chroot suffix
// kept), placeholders are filled in (PATH, CMD, COMMAND, VERSION; optional `[...]` parts left
// out), and `zkts bench` runs short (one round of 300 ms, at most 4 sessions in 1 process).
// Scripts the lines name (`./backup.sh`) are stubs that exit 0. A line that runs until Ctrl-C
// gets SIGINT once it has said something.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docPages } from '../../support/doc-pages.js';
import { cliEntry, freshChroot } from './helpers.js';

const ROOT = join(import.meta.dirname, '../../..');
const PAGES = docPages();

interface DocLine {
  page: string;
  line: string;
}

/** The zkts lines of one page (see the header for which). */
function linesOf(page: string): DocLine[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const found: string[] = [];
  for (const [, language, body] of text.matchAll(/```(\w*)\n([\s\S]*?)```/g)) {
    for (const raw of body!.split('\n')) {
      const line = raw.trim();
      if (language === 'sh' || language === 'bash') {
        if (/^(npx )?zkts\b/.test(line) || /\| zkts /.test(line)) found.push(line);
      } else if (/^\$ (npx )?zkts\b/.test(line)) {
        found.push(line.slice(2));
      }
    }
  }
  const prose = text.replace(/```[\s\S]*?```/g, '');
  for (const [, span] of prose.matchAll(/`((?:npx )?zkts [^`]+)`/g)) {
    if (/\/|\b(PATH|CMD|COMMAND)\b/.test(span!) && !span!.includes('...')) found.push(span!);
  }
  return [...new Set(found)].map((line) => ({ page, line }));
}

/** Lines that run until interrupted, and the signal they get once they have said something. */
const UNTIL_INTERRUPTED: [RegExp, NodeJS.Signals][] = [
  [/zkts watch /, 'SIGINT'],
  [/zkts lock \S+\s*(#|$)/, 'SIGINT'], // no command: holds until Ctrl-C
  [/locks --watch/, 'SIGINT'],
  // A background job of `sh -c` ignores SIGINT (POSIX): SIGTERM, which zkts forwards, ends it.
  [/sleep 30 &/, 'SIGTERM'],
];

/** Lines whose documented outcome is not status 0 here, and why. */
const EXPECTED_STATUS: [RegExp, number[], string][] = [
  [/reconfig --add/, [1, 7], 'a standalone server refuses reconfig'],
  [/--sasl app:secret/, [0, 7], 'the test server may not know the SASL user app'],
  [/removewatches \/app -d/, [1], 'this session set no watch on /app (NOWATCHER)'],
  [/4lw cons/, [0, 1], 'four-letter words the server has not whitelisted answer an error'],
];

/** The line as it runs here (see the header). */
function prepared(line: string, servers: string, benchMs = 300): string {
  let out = line
    .replace(/\s+#\s.*$/, '')
    .replace(/^npx zkts/, 'zkts')
    .replace(/\s*\[-[^\]]*\]/g, '')
    .replace(/\bPATH\b/g, '/doc/path')
    .replace(/\bCMD\b/g, 'true')
    .replace(/\bCOMMAND\b/g, 'ls')
    .replace(/\bVERSION\b/g, '0')
    .replace(
      /(-s|--server) ([\w.[\]-]+:\d+(?:,[\w.[\]-]+:\d+)*)(\/[\w/-]*)?(?=\s|$)/g,
      (_, flag: string, _hosts: string, chroot: string | undefined) =>
        `${flag} ${servers}${chroot ?? ''}`,
    );
  if (/^zkts( -s \S+)?$/.test(out)) out += ' shell';
  if (/zkts (-s \S+ )?bench /.test(out)) out = shortBench(out, benchMs);
  // The line's own process gets the signal, not a shell around it.
  return out.includes('|') ? out : `exec ${out}`;
}

/** A bench line with one short round and a small load (options replaced in place or added). */
function shortBench(line: string, durationMs: number): string {
  const limits: [string, string, (value: string) => string][] = [
    ['--duration', String(durationMs), () => String(durationMs)],
    ['--warmup', '0', () => '0'],
    ['--rounds', '1', () => '1'],
    ['--sessions', '4', (v) => String(Math.min(4, Number(v)))],
    ['--processes', '1', () => '1'],
    ['--paths', '2', (v) => String(Math.min(2, Number(v)))],
  ];
  const [zkts, ...pipeline] = line.split(' | ');
  let command = zkts!;
  for (const [option, fallback, cap] of limits) {
    const given = new RegExp(`${option} (\\d+)`);
    if (given.test(command))
      command = command.replace(given, (_, v: string) => `${option} ${cap(v)}`);
    else if (option !== '--paths' && option !== '--processes') command += ` ${option} ${fallback}`;
  }
  return [command, ...pipeline].join(' | ');
}

let bin: string;
beforeAll(async () => {
  const entry = await cliEntry();
  bin = mkdtempSync(join(tmpdir(), 'zkts-doc-lines-'));
  writeFileSync(join(bin, 'zkts'), `#!/bin/sh\nexec "${process.execPath}" "${entry}" "$@"\n`);
  chmodSync(join(bin, 'zkts'), 0o755);
  for (const script of ['backup.sh', 'scheduler.sh', 'report.sh', 'train.sh', 'job.sh']) {
    writeFileSync(join(bin, script), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, script), 0o755);
  }
  for (const script of ['deploy.sh', 'notify.sh', 'migrate.sh']) {
    writeFileSync(join(bin, script), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, script), 0o755);
  }
  // `make deploy` in a documented line: a stub, so the line's own status is zkts's.
  writeFileSync(join(bin, 'make'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(bin, 'make'), 0o755);
});
afterAll(() => rmSync(bin, { recursive: true, force: true }));

/**
 * The nodes the pages' lines use, in a fresh chroot (less the one a `create` line creates);
 * returns its connect string.
 */
async function fixture(line: string): Promise<string> {
  const { servers, root } = await freshChroot();
  const created = / create .*?(\/[\w/-]+)/.exec(line)?.[1];
  for (const path of [
    '/app',
    '/app/tmp',
    '/app/tmp/a',
    '/app/old',
    '/app/workers',
    '/app/blob',
    '/app/flag',
    '/doc',
    '/doc/path',
    '/locks',
    '/locks/orders',
    '/locks/catalog',
    '/locks/reports',
    '/election',
    '/election/scheduler',
    '/job-pool',
    '/job-pool/workers',
    '/job-pool/scheduler',
    '/job-pool/locks',
    '/job-pool/schedule',
  ])
    await root.create(path);
  if (created !== '/app/config') {
    await root.create('/app/config', '{"debug":false}');
    // `set -v 3 /app/config`: the page's example node is at version 3.
    for (let i = 0; i < 3; i++) await root.setData('/app/config', '{"debug":false}');
  }
  return servers;
}

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function run(line: string, servers: string, interrupt: NodeJS.Signals | undefined): Promise<Ran> {
  const child: ChildProcess = spawn('sh', ['-c', line], {
    cwd: bin,
    env: {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      ZOOKEEPER_SERVERS: servers,
      ZKTS_HISTORY: '',
      NO_COLOR: '1',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdin!.end();
  let stdout = '';
  let stderr = '';
  let interrupted = false;
  const talked = () => {
    if (interrupt === undefined || interrupted) return;
    interrupted = true;
    try {
      process.kill(child.pid!, interrupt);
    } catch {
      // already gone
    }
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    talked();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    talked();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const ALL = PAGES.flatMap(linesOf);

/** What zkts bench says when no operation completed in its measured rounds. */
const NOTHING_MEASURED = /no operation completed in the measured rounds/;

describe('every zkts line in the shipped pages runs', () => {
  it('finds the lines (the pages do show zkts)', () => {
    expect(ALL.length).toBeGreaterThan(50);
    expect(ALL.map((l) => l.page)).toContain('docs/elections.md');
  });

  for (const { page, line } of ALL) {
    it(`${page}: ${line}`, async () => {
      const servers = await fixture(line);
      const interrupt = UNTIL_INTERRUPTED.find(([pattern]) => pattern.test(line))?.[1];
      let command = prepared(line, servers);
      let result = await run(command, servers, interrupt);
      // A loaded machine can starve the server through a whole short bench round, and zkts bench
      // then says it measured nothing: the same line again with rounds twice as long, a few times.
      for (let ms = 600; ms <= 4_800 && NOTHING_MEASURED.test(result.stderr); ms *= 2) {
        command = prepared(line, servers, ms);
        result = await run(command, servers, interrupt);
      }
      const expected = EXPECTED_STATUS.find(([pattern]) => pattern.test(line));
      const allowed = expected?.[1] ?? [0];
      const report = `${command}\nstatus ${result.code} ${result.signal ?? ''}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
      // A refused line says so with the command's help: never acceptable.
      expect(result.stderr, report).not.toMatch(/\(see zkts[^)]*--help\)|unknown option|usage:/);
      expect(allowed, report).toContain(result.code);
    }, 60_000);
  }
});
