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
 * Reading calls the declaration with the Reader itself as `f` (the Reader has
 * `int()`, `string()`, `of(type)`...): the declaration *is* the record's reader, every
 * record is built by its own object literal (one fixed shape per record) and each
 * `f.int()` is a call the JIT inlines, as in a hand-written reader. Shapes measured
 * slower with bench/codec.ts: a generic loop storing `out[key]` (1.5-2x on decode),
 * `f(int)` dispatching on the type inside one larger function (too big to inline
 * eleven times for a Stat), and an `f` of closures over a "current reader" slot
 * (a second call per record). Writing runs the declaration once, at module load, with
 * an `f` that answers each field's type; from that field list the writer is built as
 * a chain of one closure per field (see `fieldWriter`). No code generation
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

// Kinds the record writer calls the Writer for directly; other types (no kind) go
// through their own write.
const INT = 1;
const LONG = 2;
const BOOL = 3;
const BUFFER = 4;
const STRING = 5;

/** A field type with the kind tag the record loops dispatch on. */
interface Kinded<T> extends JuteType<T> {
  readonly kind?: number;
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
  STRING,
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
  const readItem = item.read;
  const writeItem = item.write;
  return {
    read: (r) => {
      const count = r.count();
      const items: T[] = [];
      for (let i = 0; i < count; i++) items.push(readItem(r));
      return items;
    },
    write: (w, v) => {
      if (v === null) {
        w.int(-1);
        return;
      }
      w.int(v.length);
      for (let i = 0; i < v.length; i++) writeItem(w, v[i]!);
    },
  };
}

/**
 * vector<ustring>; null reads as [], null elements as ''. Not `list(string)`: child lists are the
 * largest replies a lock reads, and the reader decodes a short one in one call (`Reader.strings`).
 */
export const strings: JuteType<string[]> = {
  read: (r) => r.strings(),
  write: (w, v) => {
    if (v === null) {
      w.int(-1);
      return;
    }
    w.int(v.length);
    for (let i = 0; i < v.length; i++) w.ustring(v[i]!);
  },
};

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
 * The Reader is one (reading passes it as `f`).
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

// Run once per record at module load: each method answers the field's type, which
// gives the writer its field list. (Reading passes the Reader itself as `f`.)
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
  const minSize = options?.minSize ?? 0;
  const name = options?.name ?? 'record';

  // The Reader has the methods of `f`: the declaration itself is the reader.
  const read: (r: Reader) => T =
    minSize === 0
      ? declare
      : (r) => {
          if (r.remaining < minSize) {
            throw new ProtocolError(
              `short read: ${name} needs ${minSize} bytes, ${r.remaining} left`,
            );
          }
          return declare(r);
        };

  // The writer: one closure per field, each writing its field and calling the next
  // (see fieldWriter), built once here.
  let chain: FieldWriter | null = null;
  for (let i = keys.length - 1; i >= 0; i--) {
    chain = fieldWriter(keys[i]!, fields[keys[i]!] as Kinded<unknown>, chain);
  }
  const write = (chain ?? (() => {})) as (w: Writer, value: T) => void;

  return { fields, read, write };
}

// Writes one field of a record value, then the following fields.
type FieldWriter = (w: Writer, v: Record<string, unknown>) => void;

/**
 * The writer of field `key` of type `type`, followed by `next` (null for the last field).
 * One closure per field and kind, each a direct Writer call. Measured in instructions with
 * bench/codec-compare.ts: getData and create requests cost what hand-written writers cost, a
 * setData request about a quarter more; a loop over the fields switching on the kind cost 16%
 * (getData, create) to 28% (setData) more than hand-written. No code generation: `new Function`
 * is refused on Workers.
 */
function fieldWriter(key: string, type: Kinded<unknown>, next: FieldWriter | null): FieldWriter {
  switch (type.kind) {
    case INT:
      return next === null
        ? (w, v) => {
            w.int(v[key] as number);
          }
        : (w, v) => {
            w.int(v[key] as number);
            next(w, v);
          };
    case LONG:
      return next === null
        ? (w, v) => {
            w.long(v[key] as bigint);
          }
        : (w, v) => {
            w.long(v[key] as bigint);
            next(w, v);
          };
    case BOOL:
      return next === null
        ? (w, v) => {
            w.bool(v[key] as boolean);
          }
        : (w, v) => {
            w.bool(v[key] as boolean);
            next(w, v);
          };
    case BUFFER:
      return next === null
        ? (w, v) => {
            w.buffer(v[key] as Uint8Array | null);
          }
        : (w, v) => {
            w.buffer(v[key] as Uint8Array | null);
            next(w, v);
          };
    case STRING:
      return next === null
        ? (w, v) => {
            w.ustring(v[key] as string | null);
          }
        : (w, v) => {
            w.ustring(v[key] as string | null);
            next(w, v);
          };
    default: {
      const writeField = type.write;
      return next === null
        ? (w, v) => {
            writeField(w, v[key]);
          }
        : (w, v) => {
            writeField(w, v[key]);
            next(w, v);
          };
    }
  }
}

/** The empty record: header-only requests and replies without a body. */
export const empty: JuteType<undefined> = {
  read: () => undefined,
  write: () => {},
};
