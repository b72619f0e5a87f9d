// A CA and a server certificate it signs, for the TLS step. The harness's own certificate is
// self-signed with CA:true, which rustls (Deno.connectTls) refuses as a server certificate
// (CaUsedAsEndEntity); a real deployment has a CA and a leaf, as here.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const PASSWORD = 'zkts-runtimes';

export interface TestCertificates {
  /** PEM of the CA that clients trust. */
  ca: string;
  /** JVM flags that make the harness's ZooKeeper serve the CA-signed certificate. */
  jvmFlags: string[];
}

export async function makeCertificates(dir: string): Promise<TestCertificates> {
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => exec('openssl', args, { cwd: dir });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  await openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=zookeeper-ts runtimes test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  await openssl(
    'req',
    ...ec,
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
    '-subj',
    '/CN=localhost',
  );
  writeFileSync(
    file('server.ext'),
    [
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth',
    ].join('\n'),
  );
  await openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-out',
    file('server.pem'),
    '-days',
    '2',
    '-extfile',
    file('server.ext'),
  );
  await openssl(
    'pkcs12',
    '-export',
    '-in',
    file('server.pem'),
    '-inkey',
    file('server.key'),
    '-certfile',
    file('ca.pem'),
    '-name',
    'server',
    '-out',
    file('server.p12'),
    '-passout',
    `pass:${PASSWORD}`,
  );
  return {
    ca: readFileSync(file('ca.pem'), 'utf8'),
    // Appended after the harness's own -D flags, so these win.
    jvmFlags: [
      `-Dzookeeper.ssl.keyStore.location=${file('server.p12')}`,
      `-Dzookeeper.ssl.keyStore.password=${PASSWORD}`,
      '-Dzookeeper.ssl.keyStore.type=PKCS12',
    ],
  };
}
