// The checks and wire form of a create, shared by create()/create2() and Op.create in a multi:
// mode, TTL, ACL and path are checked before anything is sent.
import { makeError } from '../protocol/errors.js';
import { validatePath } from '../protocol/paths.js';
import { checkAcl } from './arguments.js';
import { toBytes } from './bytes.js';
import type { Paths } from './paths.js';
import { type ACL, CreateMode, type CreateOptions, type Data, Ids } from './types.js';

/** The modes whose node name gets the parent's counter appended. */
const SEQUENTIAL_MODES: readonly number[] = [
  CreateMode.PERSISTENT_SEQUENTIAL,
  CreateMode.EPHEMERAL_SEQUENTIAL,
  CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL,
];

/** The server keeps a TTL in 40 bits of the node's ephemeralOwner field. */
const MAX_TTL = 0xff_ffff_ffff;

function isSequential(mode: number): boolean {
  return SEQUENTIAL_MODES.includes(mode);
}

const CREATE_MODES: ReadonlySet<unknown> = new Set(Object.values(CreateMode));

/**
 * The default ACL, checked and copied once: most creates use it, and copying it for each would
 * be garbage on every lock acquisition.
 */
export const DEFAULT_ACL = Object.freeze(
  checkAcl(Ids.OPEN_ACL_UNSAFE, '/', 'create').map((entry) =>
    Object.freeze({ perms: entry.perms, id: Object.freeze(entry.id) }),
  ),
) as ACL[]; // frozen all the way down: the codecs only read it

/** The ttl field of a create without a TTL. */
const NO_TTL = -1n;

/** Builds the wire form of a create, checking mode, TTL, ACL and path first. */
export function createRequest(
  paths: Paths,
  path: string,
  data: Data | undefined,
  options: CreateOptions,
  op: string,
) {
  if (typeof options !== 'object' || options === null)
    throw makeError('BADARGUMENTS', 'options must be an object', { path, op });
  const mode = options.mode ?? CreateMode.PERSISTENT;
  if (!CREATE_MODES.has(mode)) {
    throw makeError('BADARGUMENTS', `unknown create mode ${String(mode)}`, { path, op });
  }
  validatePath(path, isSequential(mode));
  const given = options.acl;
  const acl =
    given === undefined || given === Ids.OPEN_ACL_UNSAFE ? DEFAULT_ACL : checkAcl(given, path, op);
  const withTtl =
    mode === CreateMode.PERSISTENT_WITH_TTL || mode === CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL;
  const ttl = options.ttl;
  if (withTtl) {
    if (ttl === undefined || !Number.isInteger(ttl) || ttl <= 0 || ttl > MAX_TTL) {
      throw makeError(
        'BADARGUMENTS',
        `a TTL mode needs ttl in 1..${MAX_TTL} ms, got ${String(ttl)}`,
        { path, op },
      );
    }
  } else if (ttl !== undefined) {
    throw makeError('BADARGUMENTS', 'ttl is only allowed with the *_WITH_TTL modes', {
      path,
      op,
    });
  }
  return {
    mode,
    withTtl,
    request: {
      path: paths.toServer(path),
      data: toBytes(data ?? new Uint8Array(0), path, op),
      acl,
      flags: mode,
      ttl: withTtl ? BigInt(ttl!) : NO_TTL,
    },
  };
}
