import { describe, expect, it } from 'vitest';
import { ZooKeeperError } from '../../../src/protocol/errors.js';
import { formatHost, HostList, parseConnectString } from '../../../src/session/hosts.js';
import { thrown } from '../../support/thrown.js';

describe('parseConnectString', () => {
  it('parses IPv4, host names, bracketed IPv6, default ports and a chroot', () => {
    expect(
      parseConnectString('10.0.0.1:2181,zk.example:2182,[::1]:2183,[fe80::1],zk2/app/x'),
    ).toEqual({
      hosts: [
        { host: '10.0.0.1', port: 2181 },
        { host: 'zk.example', port: 2182 },
        { host: '::1', port: 2183 },
        { host: 'fe80::1', port: 2181 },
        { host: 'zk2', port: 2181 },
      ],
      chroot: '/app/x',
    });
  });

  it('treats "/" as no chroot and skips empty entries and blanks', () => {
    expect(parseConnectString(' a:1 ,, b:2 /')).toEqual({
      hosts: [
        { host: 'a', port: 1 },
        { host: 'b', port: 2 },
      ],
      chroot: '',
    });
  });

  it.each([
    ['', 'no hosts'],
    ['/app', 'no hosts'],
    ['a:0', 'bad port'],
    ['a:70000', 'bad port'],
    ['a:x', 'bad port'],
    ['::1:2181', 'must be in brackets'],
    ['[::1:2181', 'unclosed'],
    ['a:1/app/', 'chroot'],
    ['a:1/app//x', 'chroot'],
  ])('rejects %j with a clear BADARGUMENTS error (%s)', (input, reason) => {
    const error = thrown(() => parseConnectString(input));
    expect(error).toBeInstanceOf(ZooKeeperError);
    expect((error as ZooKeeperError).code).toBe('BADARGUMENTS');
    expect((error as Error).message).toContain(reason);
  });

  it('formats hosts back, with IPv6 in brackets', () => {
    expect(formatHost({ host: '::1', port: 2181 })).toBe('[::1]:2181');
    expect(formatHost({ host: 'a', port: 1 })).toBe('a:1');
  });
});

describe('HostList', () => {
  const hosts = [
    { host: 'a', port: 1 },
    { host: 'b', port: 2 },
    { host: 'c', port: 3 },
  ];

  it('walks round-robin and reports a full cycle without a session', () => {
    const list = new HostList(hosts, false);
    const walk = Array.from({ length: 6 }, () => list.next());
    expect(walk.map((w) => w.host.host)).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    expect(walk.map((w) => w.cycled)).toEqual([true, false, false, true, false, false]);
  });

  it('counts the cycle from the last host that gave a session', () => {
    const list = new HostList(hosts, false);
    list.next();
    list.next(); // b
    list.markConnected();
    const walk = Array.from({ length: 3 }, () => list.next());
    expect(walk.map((w) => `${w.host.host}${w.cycled ? '*' : ''}`)).toEqual(['c', 'a', 'b*']);
  });

  it('shuffles when asked, keeping every host', () => {
    const many = Array.from({ length: 50 }, (_, i) => ({ host: `h${i}`, port: 1 }));
    const list = new HostList(many, true);
    expect([...list.all()].sort((x, y) => x.host.localeCompare(y.host))).toEqual(
      [...many].sort((x, y) => x.host.localeCompare(y.host)),
    );
    expect(list.all().map((h) => h.host)).not.toEqual(many.map((h) => h.host));
  });

  it('replaces the member list, keeping the current host first when it stays', () => {
    const list = new HostList(hosts, false);
    list.next();
    list.next(); // b
    list.replace([
      { host: 'x', port: 9 },
      { host: 'b', port: 2 },
    ]);
    expect(list.all()[0]).toEqual({ host: 'b', port: 2 });
    expect(list.size).toBe(2);
  });
});
