// Output for people (aligned tables, colour on terminals) and for scripts (--json).
import type { Stat } from '../index.js';

export interface OutputStream {
  write(chunk: string | Uint8Array): boolean;
  isTTY?: boolean;
}

/** Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function wantsColor(stream: OutputStream, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && (env.NO_COLOR ?? '') === '';
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC is exactly what colour codes start with.
const ANSI = /\u001b\[[0-9;]*m/g;

export function visibleLength(text: string): number {
  return text.replace(ANSI, '').length;
}

export type Align = 'left' | 'right';

export class Output {
  constructor(
    readonly stream: OutputStream,
    /** Machine output: one JSON document per result (NDJSON for streams). */
    readonly json: boolean,
    readonly color: boolean = wantsColor(stream),
  ) {}

  line(text = ''): void {
    this.stream.write(`${text}\n`);
  }

  bytes(data: Uint8Array): void {
    this.stream.write(data);
  }

  /** One JSON value: indented on a terminal, one line otherwise (so `| jq` and NDJSON both work). */
  emit(value: unknown): void {
    const indent = this.stream.isTTY ? 2 : undefined;
    this.line(JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? String(v) : v), indent));
  }

  /** Columns padded to the widest cell; the last column is not padded. */
  table(rows: readonly (readonly string[])[], align: readonly Align[] = []): void {
    const widths: number[] = [];
    for (const row of rows) {
      row.forEach((cell, i) => {
        widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell));
      });
    }
    for (const row of rows) {
      const cells = row.map((cell, i) => {
        if (i === row.length - 1 && align[i] !== 'right') return cell;
        const pad = ' '.repeat((widths[i] ?? 0) - visibleLength(cell));
        return align[i] === 'right' ? pad + cell : cell + pad;
      });
      this.line(cells.join('  '));
    }
  }

  private paint(code: string, text: string): string {
    return this.color ? `\x1b[${code}m${text}\x1b[0m` : text;
  }
  bold = (text: string) => this.paint('1', text);
  dim = (text: string) => this.paint('2', text);
  blue = (text: string) => this.paint('1;34', text);
  cyan = (text: string) => this.paint('36', text);
  green = (text: string) => this.paint('32', text);
  yellow = (text: string) => this.paint('33', text);
  red = (text: string) => this.paint('31', text);
}

/** zxids and session ids as ZooKeeper shows them. */
export function hex(value: bigint): string {
  return `0x${value.toString(16)}`;
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** Stat for --json: 64-bit ids as hex strings (JSON numbers cannot hold them), times in ms. */
export function statJson(stat: Stat): Record<string, string | number> {
  return {
    czxid: hex(stat.czxid),
    mzxid: hex(stat.mzxid),
    pzxid: hex(stat.pzxid),
    ctime: stat.ctime,
    mtime: stat.mtime,
    version: stat.version,
    cversion: stat.cversion,
    aversion: stat.aversion,
    ephemeralOwner: hex(stat.ephemeralOwner),
    dataLength: stat.dataLength,
    numChildren: stat.numChildren,
  };
}

/** Stat for people: name/value rows. */
export function statRows(stat: Stat): [string, string][] {
  return [
    ['czxid', hex(stat.czxid)],
    ['mzxid', hex(stat.mzxid)],
    ['pzxid', hex(stat.pzxid)],
    ['ctime', isoTime(stat.ctime)],
    ['mtime', isoTime(stat.mtime)],
    ['version', String(stat.version)],
    ['cversion', String(stat.cversion)],
    ['aversion', String(stat.aversion)],
    ['ephemeralOwner', hex(stat.ephemeralOwner)],
    ['dataLength', String(stat.dataLength)],
    ['numChildren', String(stat.numChildren)],
  ];
}
