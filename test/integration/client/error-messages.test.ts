// Errors that say which node is missing: the parent of a create, the chroot itself, the children
// that keep a delete from happening. The server's reply names no node; the client knows.
import { describe, expect, it } from 'vitest';
import { NoNodeError, NotEmptyError } from '../../../src/index.js';
import { sharedServer, uniquePath } from '../../harness/index.js';
import { chrooted, client, rejection } from './setup.js';

describe('error messages that name the missing node', () => {
  it('a chroot that does not exist: NONODE naming the chroot, on / and on a top-level create', async () => {
    const chroot = uniquePath('missing-chroot');
    const zk = await client(`${sharedServer().connectString}${chroot}`);
    const listed = await rejection(zk.getChildren('/'));
    expect(listed).toBeInstanceOf(NoNodeError);
    expect(listed.message).toBe(`NONODE: the chroot ${chroot} does not exist (getChildren)`);
    expect(listed.path).toBe('/');
    const created = await rejection(zk.create('/config', 'x'));
    expect(created).toBeInstanceOf(NoNodeError);
    expect(created.message).toBe(
      `NONODE: cannot create /config: the chroot ${chroot} does not exist (create)`,
    );
    expect(created.path).toBe('/config');
  });

  it('a create under a missing parent names the parent', async () => {
    const { zk } = await chrooted();
    const error = await rejection(zk.create('/no/parent', 'x'));
    expect(error).toBeInstanceOf(NoNodeError);
    expect(error.message).toBe(
      'NONODE: cannot create /no/parent: its parent /no does not exist (create)',
    );
  });

  it('a missing node that is not the chroot keeps the plain message', async () => {
    const { zk } = await chrooted();
    expect((await rejection(zk.getData('/missing'))).message).toBe(
      'NONODE: no node at /missing (getData)',
    );
  });

  it('a delete of a node with children says so', async () => {
    const { zk } = await chrooted();
    await zk.create('/t');
    await zk.create('/t/child');
    const error = await rejection(zk.delete('/t'));
    expect(error).toBeInstanceOf(NotEmptyError);
    expect(error.message).toBe('NOTEMPTY: cannot delete /t: it has children (delete)');
  });
});
