// Every command of zkts, in the order `zkts --help` lists them.
import { acl } from './acl.js';
import { bench } from './bench.js';
import { create } from './create.js';
import { digest } from './digest.js';
import { elect } from './elect.js';
import { config, getAllChildrenNumber, reconfig, removewatches } from './ensemble.js';
import { fourLetter, mntr, srvr } from './four-letter.js';
import { get } from './get.js';
import { lock } from './lock.js';
import { locks } from './locks.js';
import { ls } from './ls.js';
import { deleteAll, deleteNode, rm } from './rm.js';
import { server } from './server.js';
import { auth, ephemerals, sync, whoami } from './session.js';
import { set } from './set.js';
import { stat } from './stat.js';
import type { Command } from './types.js';
import { watch } from './watch.js';

export const COMMANDS: readonly Command[] = [
  ls,
  get,
  set,
  create,
  rm,
  deleteNode,
  deleteAll,
  stat,
  watch,
  acl,
  auth,
  sync,
  ephemerals,
  whoami,
  getAllChildrenNumber,
  config,
  reconfig,
  removewatches,
  lock,
  elect,
  locks,
  bench,
  srvr,
  mntr,
  fourLetter,
  digest,
  server,
];

export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((command) => command.name === name);
}
