"""kazoo's queues and SetPartitioner, one command per process, for the TypeScript interop tests.

Usage: /usr/bin/python3 queue_peer.py <hosts> <command> <path> [arg]

The line protocol is the one of recipe_peer.py: `ready` once connected, then the command runs
when `go` arrives on stdin; any failure prints `error <message>`. Items are comma-separated.
  locking-put <items>[:<priority>]  LockingQueue.put each item (priority default 100) -> put <n>
  locking-take <n>                  LockingQueue.get(30) then consume, n times        -> took <item> each
  locking-hold                      LockingQueue.get(30), not consumed; prints took <item>, then
                                    holds_lock, then waits for a line on stdin and exits without
                                    consuming or closing (the test kills it: its session ends)
  locking-none                      LockingQueue.get(1)                               -> got None
  queue-put <items>[:<priority>]    Queue.put each item                               -> put <n>
  queue-take <n>                    Queue.get, polled until n items (30 s)            -> took <item> each
  partition <items>:<id>:<seconds>  SetPartitioner(path, set=items, identifier=id,
                                    time_boundary=seconds), driven as kazoo's docs show: prints
                                    acquired <sorted items> on each acquisition, release before
                                    each release_set(), failed on failure; a line on stdin makes
                                    it finish() (leave the party) and print finished
"""

import os
import sys
import threading
import time

from one_command import say, serve


def put_each(queue, arg):
    """Puts each item of `<items>[:<priority>]` (priority default 100); prints put <n>."""
    items, _, priority = arg.partition(":")
    for item in items.split(","):
        queue.put(item.encode(), priority=int(priority or 100))
    say("put %d" % len(items.split(",")))


def run(client, command, path, arg):
    if command == "locking-put":
        put_each(client.LockingQueue(path), arg)
    elif command == "locking-take":
        queue = client.LockingQueue(path)
        for _ in range(int(arg)):
            value = queue.get(timeout=30)
            if value is None:
                raise RuntimeError("nothing to take within 30 s")
            if not queue.consume():
                raise RuntimeError("consume returned False")
            say("took %s" % value.decode())
    elif command == "locking-hold":
        queue = client.LockingQueue(path)
        value = queue.get(timeout=30)
        if value is None:
            raise RuntimeError("nothing to take within 30 s")
        say("took %s" % value.decode())
        say("holds %s" % queue.holds_lock())
        sys.stdin.readline()
        os._exit(0)
    elif command == "locking-none":
        say("got %s" % client.LockingQueue(path).get(timeout=1))
    elif command == "queue-put":
        put_each(client.Queue(path), arg)
    elif command == "queue-take":
        queue = client.Queue(path)
        deadline = time.time() + 30
        taken = 0
        while taken < int(arg):
            value = queue.get()
            if value is None:
                if time.time() > deadline:
                    raise RuntimeError("nothing to take within 30 s")
                time.sleep(0.05)
                continue
            taken += 1
            say("took %s" % value.decode())
    elif command == "partition":
        partition(client, path, arg)
    else:
        raise ValueError("unknown command " + command)


def partition(client, path, arg):
    items, ident, seconds = arg.split(":")
    changed = client.handler.event_object()
    party = client.SetPartitioner(path, set=items.split(","), identifier=ident,
                                  time_boundary=float(seconds), state_change_event=changed)
    stop = threading.Event()

    def wait_for_exit():
        sys.stdin.readline()
        stop.set()
        changed.set()

    threading.Thread(target=wait_for_exit, daemon=True).start()
    announced = False
    while not stop.is_set():
        if party.failed:
            say("failed")
            return
        if party.release:
            say("release")
            announced = False
            party.release_set()
        elif party.acquired:
            if not announced:
                say("acquired %s" % ",".join(sorted(party)))
                announced = True
            changed.wait(0.1)
            changed.clear()
        elif party.allocating:
            party.wait_for_acquire(0.1)
    party.finish()
    say("finished")


if __name__ == "__main__":
    serve(run, session_timeout=4.0)
