// The changelog rule, as pure functions over commits and the changelog's text, so that its own
// tests can show it failing; changelog.test.ts applies it to the repository's history.

/** One commit as the rule sees it: its id, its whole message and the files it changed. */
export interface CommitFacts {
  readonly id: string;
  readonly message: string;
  readonly files: readonly string[];
}

/**
 * A commit that changes nothing a user can observe says so in its message with a line
 * `Changelog: none` (followed by the reason); every other commit that changes `src/` must also
 * change CHANGELOG.md.
 */
export const NO_ENTRY_MARKER = /^changelog:\s*none\b/im;

/**
 * Commits on main that change src/ without the line or the marker, each with the reason no line
 * is owed (main's history is never rewritten, so they are named here instead).
 */
export const EXEMPT_COMMITS: ReadonlyMap<string, string> = new Map([
  [
    '410f4af01d',
    'a lint-only fix (no assignment in an expression) of guaranteed-delete.ts, landed with the commit whose CHANGELOG.md lines cover it',
  ],
  [
    '086b094194',
    'internal: the coordination layer names its path helpers after the public nodeName and parentPath (one implementation); behaviour unchanged',
  ],
  ['b86cf9d4b2', 'formatting and an unused type import, behaviour unchanged'],
]);

/** The commits that change src/ without a CHANGELOG.md line and without the marker. */
export function commitsMissingEntry(commits: readonly CommitFacts[]): CommitFacts[] {
  return commits.filter(
    (commit) =>
      ![...EXEMPT_COMMITS.keys()].some((id) => commit.id.startsWith(id)) &&
      commit.files.some((file) => file.startsWith('src/')) &&
      !commit.files.includes('CHANGELOG.md') &&
      !NO_ENTRY_MARKER.test(commit.message),
  );
}

/** The subsections `[Unreleased]` keeps, in this order (Keep a Changelog's names). */
export const UNRELEASED_SECTIONS = ['Added', 'Changed', 'Fixed', 'Removed'] as const;

/**
 * What is wrong with the changelog's shape: `## [Unreleased]` must be the first release heading,
 * with its four subsections in order, and a `## 0.1.0` section must follow it.
 */
export function changelogShapeProblems(text: string): string[] {
  const lines = text.split('\n');
  const releases = lines
    .map((line, index) => ({ line, index }))
    .filter(({ line }) => line.startsWith('## '));
  const problems: string[] = [];
  if (releases[0]?.line.trim() !== '## [Unreleased]') {
    problems.push(
      `the first release heading is "${releases[0]?.line ?? '(none)'}", not "## [Unreleased]"`,
    );
    return problems;
  }
  const end = releases[1]?.index ?? lines.length;
  const subsections = lines
    .slice(releases[0].index + 1, end)
    .filter((line) => line.startsWith('### '))
    .map((line) => line.slice(4).trim());
  if (subsections.join(',') !== UNRELEASED_SECTIONS.join(',')) {
    problems.push(
      `[Unreleased] has the subsections ${JSON.stringify(subsections)}, not ${JSON.stringify(UNRELEASED_SECTIONS)}`,
    );
  }
  if (!releases.some(({ line }) => /^## 0\.1\.0\b/.test(line))) {
    problems.push('there is no "## 0.1.0" section');
  }
  return problems;
}
