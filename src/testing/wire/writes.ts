// Which requests are writes, for both kinds of test server: the model proposes them through its
// leader, and both kinds' lost-reply fault (`loseNextReply`) takes the first of them a client
// sends after it was armed, so the fault lands on the same request whichever server runs.
import { OpCode } from '../../protocol/ops.js';

/** The opcodes of the requests that change the tree (a standalone check included). */
export const WRITE_OPS: ReadonlySet<number> = new Set<number>([
  OpCode.create,
  OpCode.create2,
  OpCode.createContainer,
  OpCode.createTTL,
  OpCode.delete,
  OpCode.setData,
  OpCode.setACL,
  OpCode.multi,
  OpCode.reconfig,
  OpCode.check,
]);
