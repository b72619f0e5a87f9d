// Found by the API abuse run: some arguments of the wrong type end in a TypeError from deep inside
// the client instead of the typed refusal the contract promises ("every rejection from the client
// is a ZooKeeperError"; "bad input ... is refused before anything is sent"):
// - an options object that is null: create(path, data, null), getData(path, null), ...
//   (default parameters only replace undefined)  -> "Cannot read properties of null"
// - ACL entries that are not { perms, id: { scheme, id } }: create(..., { acl: [null] }),
//   setACL(path, [{}])                              -> createRequest / checkAcl read entry.id.scheme
// - multi([null]), multiRead([null])               -> toMultiOp reads op.type / op.path
// - new MultiLock(<not an array>) or new MultiLock([null])  -> locks.flatMap / lock.client
// - withLock(lock, <not a function>): the lock is taken first, then "fn is not a function".
import { describe, expect, it } from 'vitest';
import { Op } from '../../../src/index.js';
import { MultiLock, Mutex, withLock } from '../../../src/locks/index.js';
import { uniquePath } from '../../harness/index.js';
import { client, expectCode, outcome } from './helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: feeding wrong types on purpose
type Loose = any;

describe('regression: wrong argument types give typed errors', () => {
  it('null options objects are refused with BADARGUMENTS', async () => {
    const zk = (await client()) as Loose;
    const root = uniquePath('regress-types');
    await zk.create(root);
    for (const [name, call] of [
      ['create', () => zk.create(`${root}/a`, 'x', null)],
      ['create2', () => zk.create2(`${root}/a`, 'x', null)],
      ['getData', () => zk.getData(root, null)],
      ['exists', () => zk.exists(root, null)],
      ['getChildren', () => zk.getChildren(root, null)],
    ] as const) {
      const result = await outcome(call);
      expect(() => expectCode(result, 'BADARGUMENTS'), name).not.toThrow();
    }
    expect(await zk.getChildren(root)).toEqual([]);
  });

  it('malformed ACL entries are refused with INVALIDACL', async () => {
    const zk = (await client()) as Loose;
    const root = uniquePath('regress-acl');
    await zk.create(root);
    for (const acl of [[null], [{}], [{ perms: 31 }], [{ perms: 31, id: null }]] as Loose[]) {
      expectCode(await outcome(() => zk.create(`${root}/a`, 'x', { acl })), 'INVALIDACL');
      expectCode(await outcome(() => zk.setACL(root, acl)), 'INVALIDACL');
      expectCode(
        await outcome(() => zk.multi([Op.create(`${root}/a`, 'x', { acl })])),
        'INVALIDACL',
      );
    }
    expect(await zk.getChildren(root)).toEqual([]);
  });

  it('multi and multiRead refuse ops that are not ops', async () => {
    const zk = (await client()) as Loose;
    for (const ops of [[null], [undefined], [42]]) {
      expectCode(await outcome(() => zk.multi(ops)), 'BADARGUMENTS');
      expectCode(await outcome(() => zk.multiRead(ops)), 'BADARGUMENTS');
    }
  });

  it('MultiLock refuses a list that is not a list of locks', async () => {
    for (const locks of ['x', null, [null], [{}]]) {
      expectCode(await outcome(() => new MultiLock(locks as Loose)), 'BADARGUMENTS');
    }
  });

  it('withLock refuses a callback that is not a function, without taking the lock', async () => {
    const zk = await client();
    const path = `${uniquePath('regress-withlock')}/lock`;
    let acquired = false;
    const lock = {
      acquire: async () => {
        acquired = true;
        return new Mutex(zk, path).acquire();
      },
    };
    expectCode(await outcome(() => withLock(lock, 42 as Loose)), 'BADARGUMENTS');
    expect(acquired).toBe(false);
  });
});
