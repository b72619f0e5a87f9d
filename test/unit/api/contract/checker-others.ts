// The checks of the kinds that are not recipes: error classes (their code, name and base), the
// client (the same close, disposal and listening rules as a recipe, and its own closed error),
// and value classes (no lifecycle, so no recipe can hide among them).
import type { Client } from '../../../../src/client/client.js';
import { ListenerError } from '../../../../src/client/listeners.js';
import { LeaseReleasedError } from '../../../../src/locks/index.js';
import {
  ClientClosedError,
  ErrorCode,
  InvalidArgumentError,
  TimeoutError,
  ZooKeeperError,
} from '../../../../src/protocol/errors.js';
import { call, type Findings } from './bench.js';
import type { Env } from './env.js';
import type { Bounds, ClientKind, ErrorKind, HandleKind, ValueKind } from './kinds.js';
import { eventually, isThenable, outcomeOf, told } from './outcome.js';

/** The time connect() is given where no session can be had: it must reject with a TimeoutError. */
const CONNECT_TIMEOUT = 40;

export function checkError(name: string, spec: ErrorKind, cls: unknown): Findings {
  const findings: Findings = new Map();
  const error = spec.make();
  const wrong: string[] = [];
  if (!(error instanceof (cls as new () => unknown))) wrong.push(`not an instance of ${name}`);
  if (error.name !== name) wrong.push(`its name is ${error.name}`);
  if (spec.zooKeeperError && !(error instanceof ZooKeeperError)) {
    wrong.push('not a ZooKeeperError');
  }
  if (error instanceof ZooKeeperError) {
    if (spec.code !== undefined && error.code !== spec.code) {
      wrong.push(`its code is ${error.code}, not ${spec.code}`);
    }
    if (spec.clientSide && !(error.errno < -1000)) {
      wrong.push(
        `a client-side fault with code ${error.code}, errno ${error.errno}: no code of its own (errno below -1000)`,
      );
    }
    if (!spec.clientSide && error.errno !== ErrorCode[error.code as keyof typeof ErrorCode]) {
      wrong.push(`a server code with errno ${error.errno}`);
    }
  }
  if (wrong.length > 0) findings.set('error-shape', wrong.join('; '));
  return findings;
}

export function checkValue(spec: ValueKind, cls: unknown): Findings {
  const findings: Findings = new Map();
  const prototype = (cls as { prototype: Record<string, unknown> }).prototype;
  const lifecycle = ['start', 'acquire', 'on'].filter((m) => typeof prototype[m] === 'function');
  if (lifecycle.length > 0 || spec.why.length === 0) {
    findings.set('value', `a value class with ${lifecycle.join(', ')}(): classify it as a recipe`);
  }
  return findings;
}

export async function checkClient(env: Env, spec: ClientKind): Promise<Findings> {
  const findings: Findings = new Map();
  await checkConnectWait(env, spec, findings);
  // close(): a promise, the same one every time, resolving.
  const closing = await spec.connect(env);
  const closed = await outcomeOf(() => {
    const a = closing.close();
    if (!isThenable(a) || closing.close() !== a) throw new Error('not the same promise twice');
    return a;
  });
  if (closed.how !== 'resolved') findings.set('close', `close() ${told(closed)}`);
  // A call on a closed client rejects with ClientClosedError.
  const after = await outcomeOf(() => closing.getData('/'));
  if (!(after.how === 'rejected' && after.error instanceof ClientClosedError)) {
    findings.set('after-close', `getData() after close() ${told(after)}`);
  }
  // `await using` ends the session: its ephemeral node is gone.
  const node = env.path('client-ephemeral');
  const used = await outcomeOf(async () => {
    await using client = await spec.connect(env);
    await client.create(node, '', { mode: 1 });
  });
  if (used.how !== 'resolved') findings.set('await-using', `a block that used it ${told(used)}`);
  else if (await env.exists(node)) findings.set('await-using', `${node} outlived the block`);
  // Listening, and a throwing listener.
  const client = await spec.connect(env);
  try {
    const offs = (['state', 'closing', 'renewed', 'error'] as const).map((event) =>
      client.on(event, () => {}),
    );
    if (!offs.every((off) => typeof off === 'function')) {
      findings.set('on', 'on(event, listener) did not return the unsubscribe function');
    }
    const thrown = new Error('a closing listener failed');
    const heard: unknown[] = [];
    client.on('closing', () => {
      throw thrown;
    });
    client.on('error', (error) => heard.push(error));
    // A bad argument is refused before anything is sent; an aborted call rejects with its reason.
    const bad = await outcomeOf(() => client.getData('relative'));
    if (!(bad.how !== 'resolved' && 'error' in bad && bad.error instanceof InvalidArgumentError)) {
      findings.set('bad-arguments', `getData('relative') ${told(bad)}`);
    }
    const reason = new Error('the caller gave up');
    const aborted = await outcomeOf(() =>
      client.getData('/', { signal: AbortSignal.abort(reason) }),
    );
    if (!(aborted.how === 'rejected' && aborted.error === reason)) {
      findings.set('abort:getData', `getData('/', { signal }) aborted ${told(aborted)}`);
    }
    await outcomeOf(() => client.close());
    const reported = () =>
      heard.some((e) => e instanceof ListenerError && e.event === 'closing' && e.cause === thrown);
    if (!(await eventually(reported))) {
      findings.set(
        'listener-error',
        'a throwing closing listener never reached the error listeners',
      );
    }
  } finally {
    await outcomeOf(() => client.close());
  }
  return findings;
}

/** connect() is a wait: `timeout:connect`, `abort:connect`, `bad-timeout:connect`. */
async function checkConnectWait(env: Env, spec: ClientKind, findings: Findings): Promise<void> {
  const attempt = async (bounds: Bounds) => {
    const outcome = await outcomeOf(() => spec.unreachable(env, bounds));
    // A session had after all: the check fails below, and the client is not left open.
    if (outcome.how === 'resolved') await (outcome.value as Client).close();
    return outcome;
  };
  const timedOut = await attempt({ timeout: CONNECT_TIMEOUT });
  if (!(timedOut.how === 'rejected' && timedOut.error instanceof TimeoutError)) {
    findings.set(
      'timeout:connect',
      `connect({ timeout: ${CONNECT_TIMEOUT} }) with no session to be had ${told(timedOut)}, not a TimeoutError`,
    );
  }
  const reason = new Error('the caller gave up');
  const aborted = await attempt({ signal: AbortSignal.abort(reason) });
  if (!(aborted.how === 'rejected' && aborted.error === reason)) {
    findings.set(
      'abort:connect',
      `connect({ signal }) with an aborted signal ${told(aborted)}, not the signal's reason`,
    );
  }
  const bad = await attempt({ timeout: -1 });
  if (!(bad.how === 'rejected' && bad.error instanceof InvalidArgumentError)) {
    findings.set(
      'bad-timeout:connect',
      `connect({ timeout: -1 }) ${told(bad)}, not an InvalidArgumentError`,
    );
  }
}

export async function checkHandle(
  env: Env,
  name: string,
  spec: HandleKind,
  cls: unknown,
): Promise<Findings> {
  const findings: Findings = new Map();
  const undo: (() => unknown)[] = [];
  const take = () =>
    spec.take(env, env.client, env.path(name), (step) => {
      undo.push(step);
    });
  try {
    const used = await take();
    const { handle, nodes } = used;
    if (!(handle instanceof (cls as new () => unknown))) {
      findings.set('handle', `what ${spec.why} hands out is not a ${name}`);
    }
    if (typeof handle[Symbol.asyncDispose] !== 'function') {
      findings.set('await-using', 'it has no [Symbol.asyncDispose]()');
    } else {
      const disposed = await outcomeOf(async () => {
        await using held = handle as unknown as AsyncDisposable;
        void held;
      });
      const left = await Promise.all(nodes.map((node) => env.exists(node)));
      if (disposed.how !== 'resolved') {
        findings.set('await-using', `a block that used it ${told(disposed)}`);
      } else if (nodes.length === 0 || left.includes(true)) {
        findings.set('await-using', `its nodes ${nodes.join(', ')} outlived the block`);
      }
    }
    const { handle: released } = await take();
    const twice = await outcomeOf(async () => {
      const first = call(released, 'release');
      if (!isThenable(first)) throw new Error(`release() returned ${typeof first}`);
      await first;
      await call(released, 'release');
    });
    if (twice.how !== 'resolved') findings.set('release', `release() twice ${told(twice)}`);
    const signal = released.signal;
    if (signal instanceof AbortSignal && !(signal.reason instanceof LeaseReleasedError)) {
      findings.set('release', `after release() its signal's reason is ${String(signal.reason)}`);
    }
  } finally {
    for (const step of undo.reverse()) await outcomeOf(step);
  }
  return findings;
}
