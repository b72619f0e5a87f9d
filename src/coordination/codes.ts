// Telling errors apart by their code, for the rules that branch on it (retry, gone, renewed).
import { ZooKeeperError } from '../protocol/errors.js';

/** Whether `error` is a ZooKeeperError with one of `codes`. */
export function hasCode(error: unknown, ...codes: string[]): boolean {
  return error instanceof ZooKeeperError && codes.includes(error.code);
}
