// Following the ensemble: the client addresses read out of the dynamic configuration text.
import { describe, expect, it } from 'vitest';
import { parseServerList } from '../../../src/client/ensemble.js';

describe('parseServerList', () => {
  it('reads client addresses from a dynamic config, resolving wildcard hosts', () => {
    const config = [
      'server.1=127.0.0.1:2888:3888:participant;127.0.0.1:2181',
      'server.2=10.0.0.2:2888:3888:participant;0.0.0.0:2182',
      'server.3=10.0.0.3:2888:3888:observer;2183',
      'version=100000000',
    ].join('\n');
    expect(parseServerList(config)).toEqual([
      { host: '127.0.0.1', port: 2181 },
      { host: '10.0.0.2', port: 2182 },
      { host: '10.0.0.3', port: 2183 },
    ]);
  });
});
