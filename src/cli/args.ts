// A small getopt: GNU-style long and short options, interleaved with positionals, `--` ends them.
import { UsageError } from './errors.js';

export interface OptionSpec {
  /** Long name without dashes; also the key in `ParsedArgs.options`. */
  long: string;
  short?: string;
  /** Placeholder of the value (`MS`, `VERSION`) when the option takes one. */
  value?: string;
  /** May be given several times (values collected in order). */
  repeat?: boolean;
  help: string;
}

export interface ParsedArgs {
  options: Map<string, string[] | true>;
  positionals: string[];
  /** Everything after `--` (undefined when there was no `--`). */
  rest: string[] | undefined;
}

export interface ParseSettings {
  /** Stop at the first positional: it and everything after it go to `rest` (global options). */
  stopAtPositional?: boolean;
  /** Names the parser in messages (`ls`, or `zkts` for global options). */
  command: string;
}

export function parseArgs(
  argv: readonly string[],
  specs: readonly OptionSpec[],
  settings: ParseSettings,
): ParsedArgs {
  const options = new Map<string, string[] | true>();
  const positionals: string[] = [];
  const where = settings.command === 'zkts' ? '' : ` for ${settings.command}`;
  const record = (spec: OptionSpec, value: string | undefined) => {
    if (spec.value === undefined) {
      options.set(spec.long, true);
      return;
    }
    const previous = options.get(spec.long);
    if (previous !== undefined && !spec.repeat) {
      throw new UsageError(`option --${spec.long} given twice${where}`);
    }
    options.set(spec.long, [...(Array.isArray(previous) ? previous : []), value ?? '']);
  };
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') return { options, positionals, rest: argv.slice(i + 1) };
    if (token.startsWith('--')) {
      const eq = token.indexOf('=');
      const name = eq < 0 ? token.slice(2) : token.slice(2, eq);
      const spec = specs.find((s) => s.long === name);
      if (!spec) throw new UsageError(`unknown option --${name}${where}`);
      if (spec.value === undefined) {
        if (eq >= 0) throw new UsageError(`option --${name} takes no value${where}`);
        record(spec, undefined);
        continue;
      }
      const value = eq >= 0 ? token.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`option --${name} needs a ${spec.value}`);
      record(spec, value);
      continue;
    }
    if (token.startsWith('-') && token.length > 1) {
      for (let j = 1; j < token.length; j++) {
        const letter = token[j]!;
        const spec = specs.find((s) => s.short === letter);
        if (!spec) throw new UsageError(`unknown option -${letter}${where}`);
        if (spec.value === undefined) {
          record(spec, undefined);
          continue;
        }
        const value = j + 1 < token.length ? token.slice(j + 1) : argv[++i];
        if (value === undefined) throw new UsageError(`option -${letter} needs a ${spec.value}`);
        record(spec, value);
        break;
      }
      continue;
    }
    if (settings.stopAtPositional) return { options, positionals, rest: argv.slice(i) };
    positionals.push(token);
  }
  return { options, positionals, rest: undefined };
}

/** Typed reads of parsed options. */
export class Options {
  constructor(private readonly parsed: ParsedArgs['options']) {}

  has(name: string): boolean {
    return this.parsed.has(name);
  }

  string(name: string): string | undefined {
    const value = this.parsed.get(name);
    return Array.isArray(value) ? value[value.length - 1] : undefined;
  }

  strings(name: string): string[] {
    const value = this.parsed.get(name);
    return Array.isArray(value) ? value : [];
  }

  /** A whole number within [min, max], or undefined when the option is absent. */
  integer(name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    if (!/^-?\d+$/.test(text.trim()) || Number(text) < min || Number(text) > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
      throw new UsageError(`--${name} must be a whole number ${range}, got "${text}"`);
    }
    return Number(text);
  }
}
