// Splits a shell line into words the way zkCli does, so that a line typed there means the same
// here. A shell's rules (quotes anywhere in a word removed, backslashes escaping) would silently
// store something other than what was typed: `create /app/config {"debug":false}` would store
// `{debug:false}`. What zkCli's rule cannot express is refused with a hint, never guessed.
import { UsageError } from './errors.js';

/**
 * `set /a "two words"` -> ['set', '/a', 'two words']; `set /a {"x":1}` -> ['set', '/a', '{"x":1}'].
 * - A word that starts with `"` or `'` runs to the matching quote; the quotes go, everything
 *   between them stays as typed (no escapes).
 * - Any other word runs to the next whitespace and keeps every character, quotes and
 *   backslashes included.
 * - A quoted word must end where the word ends (`"a"b` and `'it''s'` are refused).
 */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < line.length) {
    const ch = line[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '"' || ch === "'") {
      const close = line.indexOf(ch, i + 1);
      if (close < 0) throw new UsageError(`unterminated ${ch} quote${QUOTE_HINT}`);
      const after = line[close + 1];
      if (after !== undefined && !/\s/.test(after)) {
        throw new UsageError(
          `a quoted word must end at its closing quote (${line.slice(i, close + 2)}...)${QUOTE_HINT}`,
        );
      }
      words.push(line.slice(i + 1, close));
      i = close + 1;
      continue;
    }
    let end = i;
    while (end < line.length && !/\s/.test(line[end]!)) end++;
    words.push(line.slice(i, end));
    i = end;
  }
  return words;
}

const QUOTE_HINT =
  '; as in zkCli, quotes group only a whole word ("two words" or \'{"a": 1}\'), and quotes inside ' +
  'a word are kept as typed ({"a":1}); for other data use `zkts set PATH -` from your system shell';
