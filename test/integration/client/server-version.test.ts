import { describe, expect, it } from 'vitest';
import { fourLetterWord, sharedServer } from '../../harness/index.js';
import { chrooted } from './setup.js';

describe('client.serverVersion() against a real server', () => {
  it('reports the version the connected server prints for srvr', async () => {
    const { zk } = await chrooted();
    const version = await zk.serverVersion();
    const [host, port] = zk.server!.split(':') as [string, string];
    const srvr = await fourLetterWord(host, Number(port), 'srvr');
    const line = /^Zookeeper version: (.*)$/m.exec(srvr)![1]!;
    expect(version.full).toBe(line.trim());
    expect(line.startsWith(`${version.version}`)).toBe(true);
    expect(version.version).toBe(`${version.major}.${version.minor}.${version.patch}`);
    expect(version.major).toBe(3);
    expect(version.server).toBe(zk.server);
    expect(sharedServer().connectString).toContain(version.server);
  });
});
