// Found by the API abuse run: addAuth() with credentials larger than the frame limit
// (maxFrameSize, jute.maxbuffer) is not refused. The credentials are kept for every reconnect and
// the frame is sent; the server drops the connection; the client reconnects and sends them again
// with the handshake: an endless connect/drop loop (about a hundred reconnects a second on
// loopback). The addAuth promise never settles, every request of the session fails with
// CONNECTIONLOSS, every lease of the client loses its signal, and the session never expires.
// Other oversized requests are refused before sending (Session.submit); Session.addAuth skips
// that check.
import { describe, expect, it } from 'vitest';
import type { SessionState } from '../../../src/index.js';
import { client, expectCode, outcome } from './helpers.js';

describe('regression: addAuth with oversized credentials', () => {
  it('is refused with BADARGUMENTS before sending; the connection stays up', async () => {
    const zk = await client();
    const states: SessionState[] = [];
    zk.on('state', (state) => states.push(state));
    const result = await outcome(() => zk.addAuth('digest', new Uint8Array(2 * 1024 * 1024)));
    expectCode(result, 'BADARGUMENTS');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(states).toEqual([]);
    expect(await zk.exists('/')).not.toBeNull();
  });
});
