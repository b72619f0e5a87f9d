"""kazoo's counter and barrier recipes, one command per process, for the TypeScript interop tests.

Usage: /usr/bin/python3 recipe_peer.py <hosts> <command> <path> [arg]

The line protocol is the one of test/interop/java/RecipePeer.java: `ready` once connected, then
the command runs when `go` arrives on stdin; any failure prints `error <message>`.
  count-increment <n>  Counter(path, support_curator=True) += 1, n times  -> done <n>
  count-get            Counter(path, support_curator=True).value          -> value <v>
  double-barrier <n>   DoubleBarrier(path, n): enter, then leave          -> entered True, left True
  barrier-wait         Barrier(path).wait()                               -> released True
  barrier-remove       Barrier(path).remove()                             -> removed True
  lease <s>:<id>       NonBlockingLease(path, s seconds, identifier=id)   -> obtained <bool>
  multi-lease <n>:<s>:<id>  MultiNonBlockingLease(n, path, s seconds, id) -> obtained <bool>
"""

import datetime
import sys

from kazoo.client import KazooClient


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def run(client, command, path, arg):
    if command == "count-increment":
        counter = client.Counter(path, support_curator=True)
        for _ in range(int(arg)):
            counter += 1
        say("done %d" % int(arg))
    elif command == "count-get":
        say("value %d" % client.Counter(path, support_curator=True).value)
    elif command == "double-barrier":
        barrier = client.DoubleBarrier(path, int(arg))
        barrier.enter()
        say("entered True")
        barrier.leave()
        say("left True")
    elif command == "barrier-wait":
        say("released %s" % client.Barrier(path).wait(timeout=60))
    elif command == "barrier-remove":
        say("removed %s" % client.Barrier(path).remove())
    elif command == "lease":
        seconds, ident = arg.split(":", 1)
        duration = datetime.timedelta(seconds=int(seconds))
        say("obtained %s" % bool(client.NonBlockingLease(path, duration, identifier=ident)))
    elif command == "multi-lease":
        count, seconds, ident = arg.split(":", 2)
        duration = datetime.timedelta(seconds=int(seconds))
        lease = client.MultiNonBlockingLease(int(count), path, duration, identifier=ident)
        say("obtained %s" % bool(lease))
    else:
        raise ValueError("unknown command " + command)


def main():
    hosts, command, path = sys.argv[1], sys.argv[2], sys.argv[3]
    arg = sys.argv[4] if len(sys.argv) > 4 else None
    client = KazooClient(hosts=hosts, timeout=10.0)
    client.start(timeout=30)
    try:
        say("ready")
        if sys.stdin.readline().strip() != "go":
            return
        try:
            run(client, command, path, arg)
        except Exception as error:  # reported to the test, which fails with it
            say("error %s: %s" % (type(error).__name__, error))
    finally:
        client.stop()
        client.close()


if __name__ == "__main__":
    main()
