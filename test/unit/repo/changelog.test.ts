// CHANGELOG.md is kept current: every commit since this test was added that changes src/ also
// changes CHANGELOG.md (or says `Changelog: none` and why), and the file keeps its shape.
// Works on a fresh or shallow CI clone: a shallow clone's oldest commit has no parent to compare
// with and is left out; a clone without this file's first commit checks all the commits it has,
// which are all later.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type CommitFacts, changelogShapeProblems, commitsMissingEntry } from './changelog-rule.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const THIS_FILE = 'test/unit/repo/changelog.test.ts';

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
}

/** The commits to check: non-merge commits after this file's first commit, each with a parent. */
function commitsToCheck(): CommitFacts[] {
  const anchor = git('log', '--diff-filter=A', '--format=%H', '--', THIS_FILE)
    .trim()
    .split('\n')
    .at(-1);
  const shallow = git('rev-parse', '--is-shallow-repository').trim() === 'true';
  let range: string;
  if (anchor) range = `${anchor}..HEAD`;
  else if (shallow) range = 'HEAD';
  else return []; // this file is not committed yet: nothing since it to check
  // One git call for the whole range (two per commit took seconds as the history grew): each
  // commit as RS id parents US message US, then the files it changed (renames as delete + add).
  const log = git(
    'log',
    '--no-merges',
    '--no-renames',
    '--name-only',
    '--format=%x1e%H %P%x1f%B%x1f',
    range,
  );
  return log
    .split('\x1e')
    .filter(Boolean)
    .map((record) => record.split('\x1f'))
    .filter(([ids]) => ids!.trim().split(' ').length === 2) // a shallow boundary commit has no parent to diff against
    .map(([ids, message, files]) => ({
      id: ids!.trim().split(' ')[0] as string,
      message: message as string,
      files: (files ?? '').trim().split('\n').filter(Boolean),
    }));
}

const commit = (files: string[], message = 'a change'): CommitFacts => ({
  id: 'c1',
  message,
  files,
});

describe('the changelog rule', () => {
  it('flags a commit that changes src/ without CHANGELOG.md', () => {
    expect(commitsMissingEntry([commit(['src/client/client.ts'])])).toHaveLength(1);
  });

  it('accepts a src/ change with a CHANGELOG.md line, or one that says Changelog: none', () => {
    expect(commitsMissingEntry([commit(['src/a.ts', 'CHANGELOG.md'])])).toEqual([]);
    expect(
      commitsMissingEntry([commit(['src/a.ts'], 'refactor\n\nChangelog: none (internal)')]),
    ).toEqual([]);
  });

  it('ignores commits that leave src/ alone', () => {
    expect(commitsMissingEntry([commit(['test/unit/a.test.ts', 'docs/x.md'])])).toEqual([]);
  });

  it('names a changelog without [Unreleased] first, its four subsections, or a 0.1.0 section', () => {
    expect(changelogShapeProblems('# Changelog\n\n## 0.1.0\n')).toHaveLength(1);
    expect(changelogShapeProblems('## [Unreleased]\n### Added\n### Fixed\n## 0.1.0\n')[0]).toMatch(
      /subsections/,
    );
    expect(
      changelogShapeProblems('## [Unreleased]\n### Added\n### Changed\n### Fixed\n### Removed\n'),
    ).toEqual(['there is no "## 0.1.0" section']);
  });
});

describe('CHANGELOG.md in this repository', () => {
  it('has [Unreleased] (Added, Changed, Fixed, Removed) first and the 0.1.0 feature list', () => {
    expect(changelogShapeProblems(readFileSync(`${ROOT}CHANGELOG.md`, 'utf8'))).toEqual([]);
  });

  it('is touched by every commit that changes src/ (since this check was added)', () => {
    const missing = commitsMissingEntry(commitsToCheck()).map(
      ({ id, message }) => `${id.slice(0, 10)} ${message.split('\n')[0]}`,
    );
    expect(
      missing,
      'these commits change src/ without a CHANGELOG.md line; add one under [Unreleased] ' +
        '(or, for a change no user can observe, a line "Changelog: none (why)" in the message)',
    ).toEqual([]);
  });
});
