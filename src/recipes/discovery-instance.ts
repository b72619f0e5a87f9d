// A service instance as Curator's service discovery (curator-x-discovery) keeps it in ZooKeeper:
// one node per instance at `<basePath>/<name>/<id>`, holding the instance as the JSON Jackson
// writes for Curator's ServiceInstance: `name`, `id`, `address`, `port`, `sslPort`, `payload`,
// `registrationTimeUTC`, `serviceType`, `uriSpec` (its parts), `enabled`. Curator's default
// serializer leaves `enabled` out (readers take it as true); Curator 5 reads it when present.
//
// The payload is typed the way Jackson types a field declared as a Java Object: an object
// carries its Java class as an `@class` property, an array or a scalar Jackson does not read
// unaided (a Java `long`, a `List`) is written as `[className, value]`; strings, booleans,
// `int`s and `double`s are written plain. Curator's reader needs that typing to build its
// payload class, so arrays are always written wrapped, and an object payload gets `@class` when
// the instance names its `payloadClass`.
import { InvalidArgumentError, makeError } from '../protocol/errors.js';
import { pathProblem } from '../protocol/paths.js';

/**
 * How an instance is kept (Curator's `ServiceType`): `DYNAMIC` as an ephemeral node (gone with
 * the session that registered it), `STATIC` and `PERMANENT` as persistent nodes,
 * `DYNAMIC_SEQUENTIAL` as an ephemeral sequential node (read, never registered here).
 */
export const ServiceType = {
  /** An ephemeral node: registered while the session lives (the default). */
  DYNAMIC: 'DYNAMIC',
  /** A persistent node. */
  STATIC: 'STATIC',
  /** A persistent node. */
  PERMANENT: 'PERMANENT',
  /** An ephemeral sequential node (read here, not registered). */
  DYNAMIC_SEQUENTIAL: 'DYNAMIC_SEQUENTIAL',
} as const;
/** One of {@link ServiceType}'s values. */
export type ServiceType = (typeof ServiceType)[keyof typeof ServiceType];

/** One registered instance of a service, as Curator's `ServiceInstance` holds it. */
export interface ServiceInstance<T = unknown> {
  /** The service's name: the instance's parent node under the base path. */
  readonly name: string;
  /** The instance's id: its node's name. */
  readonly id: string;
  /** Where it listens (a host name or an address), or null. */
  readonly address: string | null;
  /** Its port, or null. */
  readonly port: number | null;
  /** Its TLS port, or null. */
  readonly sslPort: number | null;
  /** What the instance tells about itself (any JSON value), or null. */
  readonly payload: T | null;
  /**
   * The Java class Curator's reader builds the payload as (Jackson's `@class`), or null: set it
   * when Java readers declare a payload class of their own; read from instances Java wrote.
   */
  readonly payloadClass: string | null;
  /** When it was registered, ms since the epoch. */
  readonly registrationTimeUTC: number;
  /** How its node is kept (see {@link ServiceType}). */
  readonly serviceType: ServiceType;
  /** Curator's URI template (`{scheme}://{address}:{port}`), or null: see {@link buildUri}. */
  readonly uriSpec: string | null;
  /** False takes the instance out of the providers' choice while it stays registered. */
  readonly enabled: boolean;
}

/** An instance to register: `name` is required, the rest has Curator's defaults. */
export type ServiceInstanceInit<T = unknown> = Pick<ServiceInstance<T>, 'name'> &
  Partial<Omit<ServiceInstance<T>, 'name'>>;

/**
 * A complete instance from `init`: a random UUID `id`, `registrationTimeUTC` now, `DYNAMIC`,
 * enabled, the rest null. Throws an `InvalidArgumentError` for a field Curator could not keep.
 */
export function serviceInstance<T>(init: ServiceInstanceInit<T>): ServiceInstance<T> {
  if (typeof init !== 'object' || init === null) {
    throw new InvalidArgumentError('a service instance must be an object');
  }
  const instance: ServiceInstance<T> = {
    name: init.name,
    id: init.id ?? crypto.randomUUID(),
    address: init.address ?? null,
    port: init.port ?? null,
    sslPort: init.sslPort ?? null,
    payload: init.payload ?? null,
    payloadClass: init.payloadClass ?? null,
    registrationTimeUTC: init.registrationTimeUTC ?? Date.now(),
    serviceType: init.serviceType ?? ServiceType.DYNAMIC,
    uriSpec: init.uriSpec ?? null,
    enabled: init.enabled ?? true,
  };
  checkNodeName(instance.name, 'name');
  checkNodeName(instance.id, 'id');
  if (instance.address !== null && typeof instance.address !== 'string') {
    throw new InvalidArgumentError('a service instance address must be a string or null');
  }
  for (const key of ['port', 'sslPort'] as const) {
    const port = instance[key];
    if (port !== null && !(Number.isInteger(port) && port >= 0 && port <= 0x7fff_ffff)) {
      throw new InvalidArgumentError(`a service instance ${key} must be a Java int, got ${port}`);
    }
  }
  if (!Number.isSafeInteger(instance.registrationTimeUTC)) {
    throw new InvalidArgumentError('registrationTimeUTC must be an integer number of ms');
  }
  if (!Object.values(ServiceType).includes(instance.serviceType)) {
    throw new InvalidArgumentError(`unknown serviceType ${String(instance.serviceType)}`);
  }
  if (instance.payloadClass !== null && typeof instance.payloadClass !== 'string') {
    throw new InvalidArgumentError('payloadClass must be a Java class name or null');
  }
  if (instance.uriSpec !== null) parseUriSpec(instance.uriSpec);
  if (typeof instance.enabled !== 'boolean') {
    throw new InvalidArgumentError('enabled must be a boolean');
  }
  return instance;
}

function checkNodeName(value: unknown, field: string): void {
  if (
    typeof value !== 'string' ||
    value === '' ||
    value.includes('/') ||
    pathProblem(`/${value}`) !== null
  ) {
    throw new InvalidArgumentError(
      `a service instance ${field} must be a valid node name, got ${JSON.stringify(value)}`,
    );
  }
}

/** One part of a URI template, as Curator's `UriSpec.Part` is written. */
interface UriPart {
  readonly value: string;
  readonly variable: boolean;
}

/** Curator's parse of a URI template: `{name}` is a variable, the rest literal text. */
function parseUriSpec(spec: string): UriPart[] {
  const parts: UriPart[] = [];
  let inside = false;
  for (const token of spec.split(/([{}])/)) {
    if (token === '') continue;
    if (token === '{' || token === '}') {
      if ((token === '{') === inside) {
        throw new InvalidArgumentError(`uriSpec "${spec}": unbalanced "${token}"`);
      }
      inside = token === '{';
      continue;
    }
    parts.push({ value: inside ? token.trim() : token, variable: inside });
  }
  if (inside) throw new InvalidArgumentError(`uriSpec "${spec}": a variable is not closed`);
  return parts;
}

/** The template of Curator's parts (a literal brace becomes its `{[}`/`{]}` variable). */
function formatUriSpec(parts: readonly UriPart[]): string {
  return parts
    .map(({ value, variable }) =>
      variable ? `{${value}}` : value.replace(/[{}]/g, (brace) => (brace === '{' ? '{[}' : '{]}')),
    )
    .join('');
}

/**
 * The instance's URI from its `uriSpec`, as Curator's `buildUriSpec` makes it: `{scheme}` is
 * `https` when the instance has an `sslPort` (else `http`), `{name}`, `{id}`, `{address}`,
 * `{port}`, `{ssl-port}`, `{registration-time-utc}`, `{service-type}` (lower case), `{[}` and
 * `{]}` are the braces; `variables` add or override. An unknown variable gives nothing. An
 * instance without a `uriSpec` gives the empty string.
 */
export function buildUri(
  instance: ServiceInstance<unknown>,
  variables: Record<string, string | number> = {},
): string {
  if (instance.uriSpec === null) return '';
  const known: Record<string, string | number | null> = {
    '[': '{',
    ']': '}',
    scheme: instance.sslPort === null ? 'http' : 'https',
    name: instance.name,
    id: instance.id,
    address: instance.address,
    port: instance.port,
    'ssl-port': instance.sslPort,
    'registration-time-utc': instance.registrationTimeUTC,
    'service-type': instance.serviceType.toLowerCase(),
    ...variables,
  };
  return parseUriSpec(instance.uriSpec)
    .map(({ value, variable }) => (variable ? String(known[value] ?? '') : value))
    .join('');
}

/** The payload as Jackson's Object typing writes it (see the module comment). */
function encodePayload(payload: unknown, payloadClass: string | null): unknown {
  if (payload === null || payload === undefined) return null;
  if (payloadClass !== null) {
    if (typeof payload === 'object' && !Array.isArray(payload)) {
      return { '@class': payloadClass, ...(payload as Record<string, unknown>) };
    }
    return [payloadClass, payload];
  }
  return Array.isArray(payload) ? ['java.util.ArrayList', payload] : payload;
}

/** The payload and its Java class, out of Jackson's typing. */
function decodePayload(json: unknown): { payload: unknown; payloadClass: string | null } {
  if (Array.isArray(json) && json.length === 2 && typeof json[0] === 'string') {
    return { payload: json[1], payloadClass: json[0] };
  }
  if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
    const { '@class': payloadClass, ...rest } = json as Record<string, unknown>;
    if (typeof payloadClass === 'string') return { payload: rest, payloadClass };
  }
  return { payload: json ?? null, payloadClass: null };
}

/** The node data of `instance`: Curator's JSON, field for field (see the module comment). */
export function encodeInstance(instance: ServiceInstance<unknown>): Uint8Array {
  const json = {
    name: instance.name,
    id: instance.id,
    address: instance.address,
    port: instance.port,
    sslPort: instance.sslPort,
    payload: encodePayload(instance.payload, instance.payloadClass),
    registrationTimeUTC: instance.registrationTimeUTC,
    serviceType: instance.serviceType,
    uriSpec: instance.uriSpec === null ? null : { parts: parseUriSpec(instance.uriSpec) },
    enabled: instance.enabled,
  };
  return new TextEncoder().encode(JSON.stringify(json));
}

/**
 * The instance in a node's data. Rejects (a `MarshallingError`) data that is not Curator's JSON:
 * not an object, or without a string `name` and `id`. Missing fields take Curator's defaults.
 */
export function decodeInstance<T = unknown>(data: Uint8Array, path?: string): ServiceInstance<T> {
  let json: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(data));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw 0;
    json = parsed as Record<string, unknown>;
    if (typeof json.name !== 'string' || typeof json.id !== 'string') throw 0;
  } catch {
    throw makeError('MARSHALLINGERROR', 'not a service instance (Curator JSON)', {
      ...(path === undefined ? {} : { path }),
    });
  }
  const { payload, payloadClass } = decodePayload(json.payload);
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  const int = (value: unknown) => (typeof value === 'number' ? value : null);
  const parts = (json.uriSpec as { parts?: unknown } | null)?.parts;
  return {
    name: json.name as string,
    id: json.id as string,
    address: text(json.address),
    port: int(json.port),
    sslPort: int(json.sslPort),
    payload: payload as T | null,
    payloadClass,
    registrationTimeUTC: int(json.registrationTimeUTC) ?? 0,
    serviceType: Object.values(ServiceType).includes(json.serviceType as ServiceType)
      ? (json.serviceType as ServiceType)
      : ServiceType.DYNAMIC,
    uriSpec: Array.isArray(parts) ? formatUriSpec(parts.filter(isUriPart)) : null,
    enabled: json.enabled !== false,
  };
}

function isUriPart(part: unknown): part is UriPart {
  return (
    typeof part === 'object' &&
    part !== null &&
    typeof (part as UriPart).value === 'string' &&
    typeof (part as UriPart).variable === 'boolean'
  );
}
