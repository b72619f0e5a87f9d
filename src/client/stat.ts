// Wire Stat (64-bit times) to the public Stat (times as JS numbers: ms since the epoch fit easily).
import type { Stat as WireStat } from '../protocol/records.js';
import type { Stat } from './types.js';

export function toStat(stat: WireStat): Stat {
  return {
    czxid: stat.czxid,
    mzxid: stat.mzxid,
    ctime: Number(stat.ctime),
    mtime: Number(stat.mtime),
    version: stat.version,
    cversion: stat.cversion,
    aversion: stat.aversion,
    ephemeralOwner: stat.ephemeralOwner,
    dataLength: stat.dataLength,
    numChildren: stat.numChildren,
    pzxid: stat.pzxid,
  };
}
