// What every operation of the facade works on: the session engine and the chroot mapping. The
// Client class holds one; the files of operations (writes, reads, transactions, watching,
// ensemble) are functions of it, so that the class itself stays the documented surface.
import type { Session } from '../session/session.js';
import type { Transport } from '../session/transport.js';
import type { TlsOptions } from '../session/types.js';
import type { Paths } from './paths.js';

/** The session a client runs on, and how its paths map to the server's. */
export interface ClientCore {
  readonly session: Session;
  readonly paths: Paths;
  /** How the session reaches its servers: side connections (four-letter words) go the same way. */
  readonly dial: { readonly transport: Transport; readonly tls: TlsOptions | undefined };
}
