// What broke the link reaches the user: the runtime's error (a reset here) is the `cause` of the
// CONNECTIONLOSS errors and of the `suspended` state change.
import { describe, expect, it } from 'vitest';
import {
  ClientClosedError,
  ConnectionLossError,
  RequestTimeoutError,
  type StateChange,
} from '../../../src/index.js';
import { chrooted, client, proxied, rejection, until } from './setup.js';

describe('failure causes', () => {
  it('a reset link: in-flight calls and the suspended event carry ECONNRESET as their cause', async () => {
    const proxy = await proxied();
    const { chroot } = await chrooted();
    const zk = await client(proxy.connectString + chroot);
    const changes: [string, StateChange][] = [];
    zk.on('state', (state, change) => changes.push([state, change]));
    // Held, so the call is surely in flight when the reset comes.
    proxy.freeze('hold');
    const inFlight = rejection(zk.exists('/x'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    proxy.cut('rst');
    proxy.thaw();
    const error = await inFlight;
    expect(error).toBeInstanceOf(ConnectionLossError);
    expect(error).toMatchObject({ code: 'CONNECTIONLOSS' });
    expect((error.cause as NodeJS.ErrnoException | undefined)?.code).toBe('ECONNRESET');
    expect(error.message).toMatch(/ECONNRESET/);
    await until(zk, 'connected');
    const suspended = changes.find(([state]) => state === 'suspended');
    expect(suspended?.[1].previous).toBe('connected');
    expect(suspended?.[1].cause).toBeInstanceOf(ConnectionLossError);
    expect((suspended?.[1].cause?.cause as NodeJS.ErrnoException | undefined)?.code).toBe(
      'ECONNRESET',
    );
  });

  it('errors the client makes itself are instances of their code class: REQUESTTIMEOUT, CLIENTCLOSED', async () => {
    const { zk: chrootedClient, chroot } = await chrooted();
    await chrootedClient.create('/t');
    const proxy = await proxied();
    const zk = await client(proxy.connectString + chroot, { requestTimeout: 200 });
    proxy.freeze('hold');
    const timedOut = await rejection(zk.exists('/t'));
    expect(timedOut).toBeInstanceOf(RequestTimeoutError);
    expect(timedOut).toMatchObject({ code: 'REQUESTTIMEOUT', op: 'exists', path: '/t' });
    proxy.thaw();
    await zk.close();
    expect(await rejection(zk.exists('/t'))).toBeInstanceOf(ClientClosedError);
  });
});
