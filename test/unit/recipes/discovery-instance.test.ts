// Curator's ServiceInstance JSON: the payload's Jackson typing both ways, the URI template as
// Curator's parts and its filling, defaults for what Curator leaves out, and refused fields.
import { describe, expect, it } from 'vitest';
import {
  buildUri,
  decodeInstance,
  encodeInstance,
  serviceInstance,
} from '../../../src/recipes/index.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const json = (data: Uint8Array) =>
  JSON.parse(new TextDecoder().decode(data)) as Record<string, unknown>;

describe('service instance JSON (Curator layout)', () => {
  it('reads Jackson’s payload typing into payloadClass, and writes it back', () => {
    // As Curator 5.4 writes a Map, a POJO, a Long and a List payload.
    const cases = [
      ['{"@class":"java.util.LinkedHashMap","k":"v"}', { k: 'v' }, 'java.util.LinkedHashMap'],
      ['{"@class":"com.example.Details","weight":3}', { weight: 3 }, 'com.example.Details'],
      ['["java.lang.Long",5]', 5, 'java.lang.Long'],
      ['["java.util.ArrayList",[1,2]]', [1, 2], 'java.util.ArrayList'],
      ['"text"', 'text', null],
      ['null', null, null],
    ] as const;
    for (const [payload, value, payloadClass] of cases) {
      const instance = decodeInstance(bytes(`{"name":"s","id":"i","payload":${payload}}`));
      expect(instance.payload).toEqual(value);
      expect(instance.payloadClass).toBe(payloadClass);
      expect(json(encodeInstance(instance)).payload).toEqual(JSON.parse(payload));
    }
    // Without a class: arrays are wrapped (Curator cannot read them plain), the rest written as is.
    const plain = serviceInstance({ name: 's', payload: [1] });
    expect(json(encodeInstance(plain)).payload).toEqual(['java.util.ArrayList', [1]]);
    expect(json(encodeInstance({ ...plain, payload: { a: 1 } })).payload).toEqual({ a: 1 });
  });

  it('takes Curator’s defaults for what the JSON leaves out (enabled: true)', () => {
    expect(decodeInstance(bytes('{"name":"s","id":"i"}'))).toEqual({
      name: 's',
      id: 'i',
      address: null,
      port: null,
      sslPort: null,
      payload: null,
      payloadClass: null,
      registrationTimeUTC: 0,
      serviceType: 'DYNAMIC',
      uriSpec: null,
      enabled: true,
    });
    for (const data of ['not json', '[]', '{"id":"i"}']) {
      expect(() => decodeInstance(bytes(data))).toThrow(
        expect.objectContaining({ code: 'MARSHALLINGERROR' }),
      );
    }
  });

  it('writes the URI template as Curator’s parts and fills it as buildUriSpec does', () => {
    const instance = serviceInstance({
      name: 'api',
      id: 'a1',
      address: 'h',
      port: 80,
      uriSpec: '{scheme}://{address}:{port}/{ name }/{[}x{]}',
    });
    const parts = (json(encodeInstance(instance)).uriSpec as { parts: unknown[] }).parts;
    expect(parts[0]).toEqual({ value: 'scheme', variable: true });
    expect(parts).toContainEqual({ value: 'name', variable: true });
    expect(buildUri(instance)).toBe('http://h:80/api/{x}');
    expect(buildUri({ ...instance, sslPort: 443 }, { port: 8443 })).toBe('https://h:8443/api/{x}');
    const back = decodeInstance(encodeInstance(instance));
    expect(buildUri(back)).toBe('http://h:80/api/{x}');
  });

  it('refuses what Curator could not keep', () => {
    for (const init of [
      { name: '' },
      { name: 'a/b' },
      { name: 'a', id: '..' },
      { name: 'a', port: -1 },
      { name: 'a', serviceType: 'OTHER' as 'STATIC' },
      { name: 'a', uriSpec: '{open' },
      { name: 'a', uriSpec: 'close}' },
    ]) {
      expect(() => serviceInstance(init)).toThrow(
        expect.objectContaining({ code: 'BADARGUMENTS' }),
      );
    }
  });
});
