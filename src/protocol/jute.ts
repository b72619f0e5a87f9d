/**
 * Jute record combinators. A record is declared once, as an object literal that
 * reads each field in wire order:
 *
 *   export const CreateRequest = record((f) => ({
 *     path: f.string(), data: f.buffer(), acl: f.of(ACLs), flags: f.int(),
 *   }));
 *   export type CreateRequest = JuteValue<typeof CreateRequest>;
 *
 * and that one declaration is the reader, the writer and the TypeScript type.
 * Reading runs the declaration with an `f` whose methods read from the current
 * reader, so every record is built by its own object literal (one fixed shape per
 * record) and each `f.int()` is a one-line call the JIT inlines: decode costs what
 * a hand-written reader costs. Shapes measured slower with bench/codec.ts: a
 * generic loop storing `out[key]` (1.5-2x on decode), and `f(int)` dispatching on
 * the type inside one larger function (too big to inline eleven times for a Stat).
 * Writing runs the declaration once, at module load, with an `f` that answers each
 * field's type: that yields the field list the writer walks. No code generation
 * (`new Function` is refused on Workers).
 *
 * The declaration runs on every read, so the types given to `f.of` must be
 * constants: hoist `list(...)` out of it (see `ACLs`, `strings`).
 */

import { ProtocolError } from './errors.js';
import type { Reader } from './reader.js';
import type { Writer } from './writer.js';

/** How one jute type is read and written. Every record and field type is one of these. */
export interface JuteType<T> {
  /** Reads one value at the reader's cursor. */
  read(r: Reader): T;
  /** Appends one value to the writer. */
  write(w: Writer, value: T): void;
}

/** The TypeScript value of a jute type, e.g. `JuteValue<typeof Stat>`. */
export type JuteValue<J> = J extends JuteType<infer T> ? T : never;

// Kinds the record writer handles inline; OTHER goes through the field's own write.
const OTHER = 0;
const INT = 1;
const LONG = 2;
const BOOL = 3;
const BUFFER = 4;
const STRING = 5;
const USTRING = 6;

/** A field type with the kind tag the record loops dispatch on. */
interface Kinded<T> extends JuteType<T> {
  readonly kind: number;
}

function primitive<T>(
  kind: number,
  read: (r: Reader) => T,
  write: (w: Writer, v: T) => void,
): JuteType<T> {
  const type: Kinded<T> = { kind, read, write };
  return type;
}

/** jute `int`: 4 bytes, signed, big-endian. */
export const int: JuteType<number> = primitive(
  INT,
  (r) => r.int(),
  (w, v) => {
    w.int(v);
  },
);

/** jute `long`: 8 bytes, signed, big-endian; bigint because zxids and session ids exceed 2^53. */
export const long: JuteType<bigint> = primitive(
  LONG,
  (r) => r.long(),
  (w, v) => {
    w.long(v);
  },
);

/** jute `boolean`: one byte; any non-zero byte reads as true. */
export const bool: JuteType<boolean> = primitive(
  BOOL,
  (r) => r.bool(),
  (w, v) => {
    w.bool(v);
  },
);

/** jute `buffer`: int length + bytes; length -1 is null (distinct from empty). Reads are views. */
export const buffer: JuteType<Uint8Array | null> = primitive(
  BUFFER,
  (r) => r.buffer(),
  (w, v) => {
    w.buffer(v);
  },
);

/** jute `ustring` that may be null on the wire (length -1). */
export const ustring: JuteType<string | null> = primitive(
  USTRING,
  (r) => r.ustring(),
  (w, v) => {
    w.ustring(v);
  },
);

/** jute `ustring` that the protocol never sends as null: a null on the wire reads as ''. */
export const string: JuteType<string> = primitive(
  STRING,
  (r) => r.ustring() ?? '',
  (w, v) => {
    w.ustring(v);
  },
);

/** jute `buffer` that is never null in practice (passwords, auth tokens): null reads as empty. */
export const bytes: JuteType<Uint8Array> = {
  read: (r) => r.buffer() ?? new Uint8Array(0),
  write: (w, v) => {
    w.buffer(v);
  },
};

/** jute `vector<T>` where null (count -1) means "none": reads as [], written as given. */
export function list<T>(item: JuteType<T>): JuteType<T[]> {
  const readItem = (r: Reader): T => item.read(r);
  const writeItem = (w: Writer, v: T): void => item.write(w, v);
  return {
    read: (r) => r.vector(readItem) ?? [],
    write: (w, v) => {
      w.vector(v, writeItem);
    },
  };
}

/** vector<ustring>; null reads as [], null elements as ''. */
export const strings: JuteType<string[]> = list(string);

/**
 * A trailing `boolean` that older peers leave out (ConnectRequest/ConnectResponse
 * readOnly): absent reads as false; always written.
 */
export const trailingBool: JuteType<boolean> = {
  read: (r) => (r.remaining > 0 ? r.bool() : false),
  write: (w, v) => {
    w.bool(v);
  },
};

/**
 * The `f` of a record declaration: each call reads one field of that jute type.
 * Primitives have their own method (each a one-line call the JIT inlines into the
 * declaration); `of` takes any other type: nested records, vectors, `bytes`.
 */
export interface Field {
  /** jute `int`. */
  int(): number;
  /** jute `long`. */
  long(): bigint;
  /** jute `boolean`. */
  bool(): boolean;
  /** jute `buffer`, null for length -1. */
  buffer(): Uint8Array | null;
  /** jute `ustring`, null for length -1. */
  ustring(): string | null;
  /** jute `ustring` never sent as null: null reads as ''. */
  string(): string;
  /** A field of any other jute type. */
  of<T>(type: JuteType<T>): T;
}

/** A record type: reads and writes its fields in wire order. */
export interface JuteRecord<T> extends JuteType<T> {
  /** Field name -> jute type, in wire order. */
  readonly fields: Readonly<Record<string, JuteType<unknown>>>;
}

// The reader the running declaration reads from. Reads are synchronous and a nested
// record reads from the same reader, so one slot is enough.
let current: Reader = undefined as unknown as Reader;

const reading: Field = {
  int: () => current.int(),
  long: () => current.long(),
  bool: () => current.bool(),
  buffer: () => current.buffer(),
  ustring: () => current.ustring(),
  string: () => current.ustring() ?? '',
  of: (type) => type.read(current),
};

// Run once per record at module load: each method answers the field's type, which
// gives the writer its field list. Same keys in the same order as `reading`, so the
// declaration's call sites see one object shape.
const describing = {
  int: () => int,
  long: () => long,
  bool: () => bool,
  buffer: () => buffer,
  ustring: () => ustring,
  string: () => string,
  of: (type: JuteType<unknown>) => type,
} as unknown as Field;

/**
 * Declares a record (see the module comment). `minSize` (bytes) is checked before
 * reading, for fixed-size records whose short input deserves one clear error.
 */
export function record<T extends object>(
  declare: (f: Field) => T,
  options?: { name: string; minSize: number },
): JuteRecord<T> {
  const fields = declare(describing) as unknown as Record<string, JuteType<unknown>>;
  const keys = Object.keys(fields);
  const n = keys.length;
  const types = keys.map((k) => fields[k] as Kinded<unknown>);
  const kinds = types.map((t) => t.kind ?? OTHER);
  const minSize = options?.minSize ?? 0;
  const name = options?.name ?? 'record';

  const read = (r: Reader): T => {
    if (r.remaining < minSize) {
      throw new ProtocolError(`short read: ${name} needs ${minSize} bytes, ${r.remaining} left`);
    }
    // Restored for a type that would read a nested record from another reader; after a
    // throw the slot may stay stale, which is harmless: every read sets it first.
    const outer = current;
    current = r;
    const value = declare(reading);
    current = outer;
    return value;
  };

  const write = (w: Writer, value: T): void => {
    const v = value as Record<string, unknown>;
    for (let i = 0; i < n; i++) {
      const key = keys[i]!;
      switch (kinds[i]) {
        case INT:
          w.int(v[key] as number);
          break;
        case LONG:
          w.long(v[key] as bigint);
          break;
        case BOOL:
          w.bool(v[key] as boolean);
          break;
        case BUFFER:
          w.buffer(v[key] as Uint8Array | null);
          break;
        case STRING:
        case USTRING:
          w.ustring(v[key] as string | null);
          break;
        default:
          types[i]!.write(w, v[key]);
      }
    }
  };

  return { fields, read, write };
}

/** The empty record: header-only requests and replies without a body. */
export const empty: JuteType<undefined> = {
  read: () => undefined,
  write: () => {},
};
