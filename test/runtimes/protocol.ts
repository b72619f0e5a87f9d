// What the driver (run.ts) passes to a runtime entry, and how results come back: one JSON
// argument in, one `ZKRT-RESULT <json>` line per transport out.
import type { SmokeReport } from './smoke.js';

export interface EntryConfig {
  connectString: string;
  transports: string[];
  roundTrips: number;
  /** TLS port and the CA that signs the server certificate (PEM). */
  tls?: { connectString: string; ca: string };
  /** A SASL DIGEST-MD5 user the server knows (the server runs SASLAuthenticationProvider). */
  sasl?: { username: string; password: string };
}

export const RESULT_PREFIX = 'ZKRT-RESULT ';

export function resultLine(report: SmokeReport): string {
  return RESULT_PREFIX + JSON.stringify(report);
}
