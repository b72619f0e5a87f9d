"""A kazoo Party or ShallowParty member driven over stdin/stdout, for the TypeScript interop tests.

Usage: /usr/bin/python3 party_peer.py <hosts> <party path> <party | shallow> <identifier>

The line protocol is the one of test/interop/java/LockPeer.java: each command line starts with a
request id, and gets exactly one reply line starting with the same id.
  (on start)       -> ready                          (no id)
  <id> join        -> <id> joined                    (Party.join / ShallowParty.join)
  <id> members     -> <id> members <JSON list>       (iterating the party: kazoo's own view)
  <id> count       -> <id> count <n>                 (len(party))
  <id> leave       -> <id> left                      (Party.leave)
  <id> quit        -> <id> bye, then the session is closed and the process exits (also on EOF)
Any failure     -> <id> error <message>
"""

import json
import sys

from kazoo.client import KazooClient
from kazoo.recipe.party import Party, ShallowParty


def main():
    hosts, path, kind, identifier = sys.argv[1:5]
    client = KazooClient(hosts=hosts, timeout=10.0)
    client.start(timeout=20)
    party = (ShallowParty if kind == "shallow" else Party)(client, path, identifier)
    print("ready", flush=True)
    try:
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            tag, command = words[0], words[1:]
            try:
                reply = run(party, command)
            except Exception as error:  # every failure is a reply, never a crash
                reply = "error %s: %s" % (type(error).__name__, error)
            print("%s %s" % (tag, reply), flush=True)
            if reply == "bye":
                break
    finally:
        client.stop()
        client.close()


def run(party, command):
    if command == ["join"]:
        party.join()
        return "joined"
    if command == ["members"]:
        return "members " + json.dumps(sorted(party))
    if command == ["count"]:
        return "count %d" % len(party)
    if command == ["leave"]:
        party.leave()
        return "left"
    if command == ["quit"]:
        return "bye"
    raise ValueError("unknown command " + " ".join(command))


if __name__ == "__main__":
    main()
