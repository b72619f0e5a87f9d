// The README's Quick start, as a new user runs it: its JavaScript block and its `zkts lock` line,
// copied out of README.md and run against a FRESH server (no nodes but /zookeeper), with only the
// server address and the package specifiers replaced.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandalone, type ZkServer } from '../harness/index.js';
import { childOutput, sectionBlock } from '../support/integration.js';
import { runCli } from './cli/helpers.js';

const ROOT = join(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The first fenced block of `language` in the README section that starts with `heading`. */
const block = (heading: string, language: string) => sectionBlock(README, heading, language);

/** Runs `file` with tsx, killed after 30 s. */
const run = (file: string) =>
  childOutput(spawn(process.execPath, ['--import', 'tsx', file], { cwd: ROOT }), 30_000);

describe('README Quick start on a fresh server', () => {
  let server: ZkServer;
  let dir: string;
  beforeAll(async () => {
    server = await startStandalone();
    dir = mkdtempSync(join(tmpdir(), 'zkts-quickstart-'));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs the JavaScript block: takes the lock, writes, watches and reads', async () => {
    const code = block('## Quick start', 'js')
      .replaceAll("'zookeeper-ts/locks'", `'${pathToFileURL(join(ROOT, 'src/locks/index.ts'))}'`)
      .replaceAll("'zookeeper-ts'", `'${pathToFileURL(join(ROOT, 'src/index.ts'))}'`)
      .replaceAll('127.0.0.1:2181', server.connectString);
    expect(code).toContain(server.connectString);
    const file = join(dir, 'quickstart.mjs');
    writeFileSync(file, code);
    const result = await run(file);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^holding \/locks\/quickstart\/_c_.+-lock-0+, fencing token \d+$/m,
    );
    expect(result.stdout).toContain('read {"level":3}');
    expect(result.stdout).toContain('changed: NodeDataChanged /quickstart');
  });

  it('as quickstart.js in a project made by npm init -y: fails as commonjs, runs after the command the README names', async () => {
    const project = join(dir, 'project');
    mkdirSync(project);
    const npm = (args: string[]) => execFileSync('npm', args, { cwd: project, stdio: 'pipe' });
    npm(['init', '-y']);
    const fix = /`(npm pkg set type=module)`/.exec(README)?.[1];
    expect(fix, 'the Quick start names the command that makes the project a module').toBeDefined();
    const code = block('## Quick start', 'js')
      .replaceAll("'zookeeper-ts/locks'", `'${pathToFileURL(join(ROOT, 'src/locks/index.ts'))}'`)
      .replaceAll("'zookeeper-ts'", `'${pathToFileURL(join(ROOT, 'src/index.ts'))}'`)
      .replaceAll('127.0.0.1:2181', server.connectString);
    const file = join(project, 'quickstart.js');
    writeFileSync(file, code);
    const type = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).type;
    // npm 10 writes "commonjs"; older ones write nothing, which means the same.
    expect(type ?? 'commonjs').toBe('commonjs');
    expect((await run(file)).code).not.toBe(0);
    npm(fix!.split(' ').slice(1));
    const result = await run(file);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('read {"level":3}');
  });

  it('runs the zkts lock line: the command gets the lock and its fencing token', async () => {
    const line = block('## Quick start', 'sh').trim();
    const args = line
      .replace(/^npx zkts /, '')
      .replace('127.0.0.1:2181', server.connectString)
      .match(/'[^']*'|\S+/g)!
      .map((word) => word.replace(/^'(.*)'$/, '$1'));
    const result = await runCli(args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^token \d+$/m);
  });
});
