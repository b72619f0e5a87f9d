// Splits a shell line into words: whitespace separates, quotes group, backslash escapes.
import { UsageError } from './errors.js';

/**
 * `set /a "two words"` -> ['set', '/a', 'two words']. Single quotes keep everything literally;
 * inside double quotes a backslash escapes `"` and `\`; outside quotes it escapes any character.
 */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else word += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) word += line[++i];
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) throw new UsageError(`unterminated ${quote} quote`);
  if (inWord) words.push(word);
  return words;
}
