// Entry for workerd: POST /smoke with an EntryConfig runs the smoke suite inside that one request
// (every socket of a Worker belongs to the request that opened it).
import { type EntryConfig, resultLine } from './protocol.js';
import { runSmoke } from './smoke.js';
import { smokeOptionsFor } from './transports.js';

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/health') return new Response('ok');
    if (url.pathname !== '/smoke' || request.method !== 'POST') {
      return new Response('not found', { status: 404 });
    }
    const config = (await request.json()) as EntryConfig;
    const lines: string[] = [];
    for (const name of config.transports) {
      lines.push(`[${name}]`);
      // Workers cannot take a CA per connection: the workerd config trusts the test CA.
      const options = smokeOptionsFor(
        config,
        name,
        () => true,
        (line) => lines.push(line),
      );
      const report = await runSmoke(options);
      lines.push(resultLine(report));
    }
    return new Response(`${lines.join('\n')}\n`);
  },
};
