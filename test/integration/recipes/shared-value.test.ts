// SharedValue (and SharedCount, built on it) against the real server: the contract's shapes
// (options, start/close promises, on(event), events(), await using, typed errors) and the
// compare-and-set across clients.
import { describe, expect, it } from 'vitest';
import {
  ClosedError,
  InvalidArgumentError,
  ListenerError,
  TimeoutError,
} from '../../../src/index.js';
import { SharedCount, SharedValue, type VersionedValue } from '../../../src/recipes/index.js';
import { newClient, proxiedClient, recipePath, until } from './helpers.js';

const bytes = (...values: number[]) => new Uint8Array(values);

describe('SharedValue', () => {
  it('creates the node with the seed, reads it, and sets it with and without a version', async () => {
    const [a, b] = [await newClient(), await newClient()];
    const path = recipePath('value');
    await using mine = new SharedValue(a, path, { seed: bytes(1, 2, 3) });
    await using theirs = new SharedValue(b, path, { seed: bytes(9) });
    await mine.start();
    await theirs.start();
    expect([...(await a.getData(path)).data]).toEqual([1, 2, 3]);
    expect([...theirs.value]).toEqual([1, 2, 3]);
    const seen = mine.versioned;
    expect(seen.version).toBe(0);
    expect(await theirs.trySet(bytes(4), theirs.versioned.version)).toBe(true);
    expect(await mine.trySet(bytes(5), seen.version)).toBe(false);
    await until(() => mine.value[0] === 4, 'the other change to arrive');
    expect(await mine.trySet(bytes(5), mine.versioned.version)).toBe(true);
    await mine.set(new Uint8Array(0));
    expect(mine.versioned).toEqual({ value: new Uint8Array(0), version: 3 });
    await until(() => theirs.versioned.version === 3, 'the unconditional set to arrive');
    expect(theirs.value.length).toBe(0);
  });

  it('tells change listeners and events() of each new value, and ends events() at close', async () => {
    const [zk, writer] = [await newClient(), await newClient()];
    const path = recipePath('events');
    const shared = new SharedValue(zk, path);
    await shared.start();
    expect(shared.value.length).toBe(0);
    const heard: VersionedValue[] = [];
    const off = shared.on('change', (value) => heard.push(value));
    const stream = shared.events();
    await writer.setData(path, bytes(7));
    const first = await stream.next();
    expect(first).toEqual({ done: false, value: { value: bytes(7), version: 1 } });
    expect(heard).toEqual([{ value: bytes(7), version: 1 }]);
    off();
    await writer.setData(path, bytes(8));
    expect((await stream.next()).value).toEqual({ value: bytes(8), version: 2 });
    expect(heard).toHaveLength(1);
    await shared.close();
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });

  it('a throwing change listener goes to the error listeners; the others are still called', async () => {
    const [zk, writer] = [await newClient(), await newClient()];
    const path = recipePath('throwing');
    await using shared = new SharedValue(zk, path);
    await shared.start();
    const errors: Error[] = [];
    const heard: number[] = [];
    shared.on('error', (error) => errors.push(error));
    shared.on('change', () => {
      throw new Error('listener bug');
    });
    shared.on('change', ({ version }) => heard.push(version));
    await writer.setData(path, bytes(1));
    await until(() => heard.length === 1, 'the second listener to be called');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ListenerError);
    expect(errors[0]).toMatchObject({ event: 'change', cause: new Error('listener bug') });
    // The value carries on following the node.
    await writer.setData(path, bytes(2));
    await until(() => heard.length === 2, 'the next change');
  });

  it('start() rejects with TimeoutError while the server is out of reach, and close() still ends it', async () => {
    const { client, proxy } = await proxiedClient();
    proxy.refuse(true);
    proxy.cut();
    await until(() => client.state === 'suspended', 'the client to notice the cut');
    const shared = new SharedValue(client, recipePath('unreachable'));
    const started = shared.start({ timeout: 200 });
    await expect(started).rejects.toBeInstanceOf(TimeoutError);
    await expect(started).rejects.toMatchObject({ code: 'TIMEOUT' });
    const aborted = new AbortController();
    const waiting = shared.start({ signal: aborted.signal });
    aborted.abort(new Error('caller gave up'));
    await expect(waiting).rejects.toThrow('caller gave up');
    const pending = shared.start();
    const closing = shared.close();
    expect(shared.close()).toBe(closing);
    await closing;
    await expect(pending).rejects.toBeInstanceOf(ClosedError);
    proxy.refuse(false);
  });

  it('after close(): start() and the writes reject with ClosedError; reads keep the last value', async () => {
    const zk = await newClient();
    const path = recipePath('closed');
    const shared = new SharedValue(zk, path, { seed: bytes(3) });
    await shared.start();
    await shared.close();
    await expect(shared.start()).rejects.toBeInstanceOf(ClosedError);
    await expect(shared.set(bytes(1))).rejects.toMatchObject({ code: 'CLOSED' });
    await expect(shared.trySet(bytes(1), 0)).rejects.toBeInstanceOf(ClosedError);
    expect(shared.versioned).toEqual({ value: bytes(3), version: 0 });
    expect(() => shared.on('change', () => {})).not.toThrow();
  });

  it('refuses bad arguments with InvalidArgumentError before sending anything', async () => {
    const zk = await newClient();
    const path = recipePath('bad');
    expect(() => new SharedValue(zk, 'no-slash')).toThrow(InvalidArgumentError);
    expect(() => new SharedValue(zk, path, { seed: [1, 2] as unknown as Uint8Array })).toThrow(
      InvalidArgumentError,
    );
    const shared = new SharedValue(zk, path);
    expect(() => shared.versioned).toThrow(InvalidArgumentError);
    await expect(shared.start({ timeout: -1 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(shared.trySet(bytes(1), -2)).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(await zk.exists(path)).toBeNull();
    await shared.close();
  });
});

describe('SharedCount on SharedValue', () => {
  it('a node that does not hold 4 bytes goes to the error listeners; the count keeps its value', async () => {
    const [zk, writer] = [await newClient(), await newClient()];
    const path = recipePath('not-a-count');
    await using count = new SharedCount(zk, path, { seed: 6 });
    await count.start();
    const errors: Error[] = [];
    const heard: number[] = [];
    count.on('error', (error) => errors.push(error));
    count.on('change', ({ count: value }) => heard.push(value));
    await writer.setData(path, bytes(1, 2));
    await until(() => errors.length === 1, 'the undecodable value to be reported');
    expect(errors[0]).toMatchObject({ code: 'BADARGUMENTS' });
    expect(count.count).toBe(6);
    await writer.setData(path, bytes(0, 0, 0, 7));
    await until(() => count.count === 7, 'the next count');
    expect(heard).toEqual([7]);
  });

  it('close() is idempotent, ends events(), and start() afterwards rejects with ClosedError', async () => {
    const zk = await newClient();
    const count = new SharedCount(zk, recipePath('closing'));
    await count.start();
    expect(count.versioned).toEqual({ count: 0, version: 0 });
    const stream = count.events();
    const closing = count.close();
    expect(count.close()).toBe(closing);
    await closing;
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    await expect(count.start()).rejects.toBeInstanceOf(ClosedError);
    await expect(count.set(1)).rejects.toBeInstanceOf(ClosedError);
  });

  it('await using closes it at the end of the block', async () => {
    const zk = await newClient();
    let kept: SharedCount | undefined;
    {
      await using count = new SharedCount(zk, recipePath('disposed'), { seed: 1 });
      await count.start();
      kept = count;
    }
    await expect(kept.set(2)).rejects.toBeInstanceOf(ClosedError);
    expect(kept.count).toBe(1);
  });
});
