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

from one_command import say, serve


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


if __name__ == "__main__":
    serve(run, session_timeout=10.0)
