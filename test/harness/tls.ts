import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freshDir } from './cleanup.js';
import type { LocalInstall } from './install.js';

const run = promisify(execFile);

/** PEM material a Node TLS client needs, plus the Java stores the server reads. */
export interface TlsMaterial {
  /** The server's self-signed certificate (CA:true), to pass as `ca` to `tls.connect`. */
  ca: string;
  /** Client certificate and key (PEM), present when a client certificate was requested. */
  cert?: string;
  key?: string;
  /** Subject DN of the client certificate, as the x509 auth provider sees it. */
  clientDn?: string;
  keyStore: string;
  trustStore?: string;
  password: string;
}

export type ClientAuth = 'none' | 'want' | 'need';

// keytool is a JVM too: the same start-up flags cut each call from ~1 s to ~0.5 s.
const KEYTOOL_FAST = ['-J-XX:TieredStopAtLevel=1', '-J-XX:+UseSerialGC', '-J-XX:-UsePerfData'];
const PASSWORD = 'zkts-harness';
const CLIENT_DN = 'CN=zkts-client,O=zookeeper-ts';

const cache = new Map<string, Promise<TlsMaterial>>();

/**
 * Makes (once per process and variant) a self-signed server certificate for 127.0.0.1/localhost
 * with keytool, and, when `withClientCert`, a client certificate with openssl (keytool cannot
 * export a private key, and Node needs PEM) that the server's trust store trusts.
 */
export function tlsMaterial(install: LocalInstall, withClientCert: boolean): Promise<TlsMaterial> {
  const key = withClientCert ? 'client' : 'server';
  let material = cache.get(key);
  if (!material) {
    material = makeMaterial(install, withClientCert);
    cache.set(key, material);
    material.catch(() => cache.delete(key));
  }
  return material;
}

async function makeMaterial(install: LocalInstall, withClientCert: boolean): Promise<TlsMaterial> {
  const dir = freshDir('tls');
  const keyStore = join(dir, 'server.p12');
  const caPem = join(dir, 'ca.pem');
  const keytool = (command: string, options: Record<string, string | string[] | true>) =>
    run(install.keytool, [...KEYTOOL_FAST, `-${command}`, ...toFlags(options)], { cwd: dir });
  const clientCert = withClientCert ? makeClientCert(dir) : Promise.resolve(undefined);
  clientCert.catch(() => {}); // awaited below; this only keeps an early keytool failure from orphaning it
  await keytool('genkeypair', {
    alias: 'server',
    keyalg: 'EC',
    groupname: 'secp256r1',
    dname: 'CN=localhost,O=zookeeper-ts test server',
    // Self-signed with CA:true: clients pass this one certificate as their trust anchor (`ca`).
    ext: ['SAN=IP:127.0.0.1,DNS:localhost', 'bc:c'],
    validity: '30',
    keystore: keyStore,
    storetype: 'PKCS12',
    storepass: PASSWORD,
    keypass: PASSWORD,
  });
  await keytool('exportcert', {
    rfc: true,
    alias: 'server',
    keystore: keyStore,
    storepass: PASSWORD,
    file: caPem,
  });
  const material: TlsMaterial = { ca: readFileSync(caPem, 'utf8'), keyStore, password: PASSWORD };
  const client = await clientCert;
  if (client) {
    const trustStore = join(dir, 'trust.p12');
    await keytool('importcert', {
      noprompt: true,
      alias: 'client',
      file: client.certFile,
      keystore: trustStore,
      storetype: 'PKCS12',
      storepass: PASSWORD,
    });
    Object.assign(material, {
      trustStore,
      cert: client.cert,
      key: client.key,
      clientDn: CLIENT_DN,
    });
  }
  return material;
}

/** `{ alias: 'x', rfc: true, ext: ['a', 'b'] }` → `-alias x -rfc -ext a -ext b`. */
function toFlags(options: Record<string, string | string[] | true>): string[] {
  return Object.entries(options).flatMap(([name, value]) => {
    if (value === true) return [`-${name}`];
    return (Array.isArray(value) ? value : [value]).flatMap((v) => [`-${name}`, v]);
  });
}

async function makeClientCert(
  dir: string,
): Promise<{ cert: string; key: string; certFile: string }> {
  const certFile = join(dir, 'client.crt');
  const keyFile = join(dir, 'client.key');
  const subject = `/${CLIENT_DN.split(',').reverse().join('/')}`;
  try {
    await run(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-subj',
        subject,
        '-days',
        '30',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { cwd: dir },
    );
  } catch (err) {
    throw new Error(`a TLS client certificate needs openssl on PATH: ${(err as Error).message}`);
  }
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile };
}

/** The server JVM's system properties for a TLS-only client port. */
export function tlsSystemProperties(
  material: TlsMaterial,
  clientAuth: ClientAuth,
): Record<string, string> {
  const props: Record<string, string> = {
    'zookeeper.serverCnxnFactory': 'org.apache.zookeeper.server.NettyServerCnxnFactory',
    'zookeeper.ssl.keyStore.location': material.keyStore,
    'zookeeper.ssl.keyStore.password': material.password,
    'zookeeper.ssl.keyStore.type': 'PKCS12',
    'zookeeper.ssl.clientAuth': clientAuth,
    // Client certificates are checked against the trust store only, not against the peer address.
    'zookeeper.ssl.hostnameVerification': 'false',
    'zookeeper.ssl.clientHostnameVerification': 'false',
  };
  if (material.trustStore) {
    props['zookeeper.ssl.trustStore.location'] = material.trustStore;
    props['zookeeper.ssl.trustStore.password'] = material.password;
    props['zookeeper.ssl.trustStore.type'] = 'PKCS12';
  }
  return props;
}
