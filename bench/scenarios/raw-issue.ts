// One raw operation per call, for each Node client, in the callback form the window driver wants.

import type { Client } from '../../src/index.js';
import { CreateMode, type NzkClient } from '../baselines/nzk.js';
import type { Issue } from '../drivers/window.js';

export const RAW_OPS = ['getData', 'setData', 'createDelete'] as const;
export type RawOp = (typeof RAW_OPS)[number];

export const RAW_OP_LABEL: Record<RawOp, string> = {
  getData: 'getData',
  setData: 'setData',
  createDelete: 'create+delete',
};

/** `base/data` is read and written; create+delete uses one node per slot, `base/n-<slot>`. */
function slotNodes(base: string, slots: number): string[] {
  return Array.from({ length: slots }, (_, slot) => `${base}/n-${slot}`);
}

/** Slot `s` runs on session `s % sessions.length`. */
export function oursIssue(
  clients: readonly Client[],
  op: RawOp,
  base: string,
  slots: number,
  payload: Uint8Array,
): Issue {
  const data = `${base}/data`;
  const nodes = slotNodes(base, slots);
  const n = clients.length;
  switch (op) {
    case 'getData':
      return (slot, _seq, done) => {
        clients[slot % n]!.getData(data).then(() => done(), done);
      };
    case 'setData':
      return (slot, _seq, done) => {
        clients[slot % n]!.setData(data, payload).then(() => done(), done);
      };
    case 'createDelete':
      return (slot, seq, done) => {
        const client = clients[slot % n]!;
        const node = nodes[slot]!;
        const pending: Promise<unknown> = seq % 2 === 0 ? client.create(node) : client.delete(node);
        pending.then(() => done(), done);
      };
  }
}

export function nzkIssue(
  clients: readonly NzkClient[],
  op: RawOp,
  base: string,
  slots: number,
  payload: Uint8Array,
): Issue {
  const data = `${base}/data`;
  const nodes = slotNodes(base, slots);
  const buffer = Buffer.from(payload);
  const n = clients.length;
  switch (op) {
    case 'getData':
      return (slot, _seq, done) => {
        clients[slot % n]!.getData(data, undefined, (error) => done(error ?? undefined));
      };
    case 'setData':
      return (slot, _seq, done) => {
        clients[slot % n]!.setData(data, buffer, -1, (error) => done(error ?? undefined));
      };
    case 'createDelete':
      return (slot, seq, done) => {
        const client = clients[slot % n]!;
        const node = nodes[slot]!;
        if (seq % 2 === 0) {
          client.create(node, undefined, CreateMode.PERSISTENT, (error) =>
            done(error ?? undefined),
          );
        } else {
          client.remove(node, -1, (error) => done(error ?? undefined));
        }
      };
  }
}
