"""A kazoo lock contender driven over stdin/stdout, for the TypeScript interop tests.

Usage: /usr/bin/python3 lock_peer.py <hosts> <lock path> <mutex | mutex-extra | read | write>

mutex is kazoo's Lock, mutex-extra the same with extra_lock_patterns=["-lock-"] (Curator's and our
default nodes count as contenders), read and write its ReadLock and WriteLock. The line protocol is the one
of test/interop/java/LockPeer.java: each command line starts with a request id, and gets exactly
one reply line starting with the same id. Lock commands are answered in order; the others at once,
even while an acquire is waiting.
  (on start)          -> ready                            (no id)
  <id> acquire        -> <id> acquired <node path>        (waits as long as it takes)
  <id> acquire <ms>   -> <id> acquired <node path> | <id> timeout
  <id> release        -> <id> released
  <id> participants   -> <id> participants <data> ...     (kazoo's contenders(): their node data)
  <id> quit           -> <id> bye, then the session is closed and the process exits (also on EOF)
Any failure        -> <id> error <message>

Lock operations run on one worker thread so that the main thread can still answer the rest (and
`quit`) while an acquire is waiting. The lock's identifier (its node data) is `kazoo-peer`.
"""

import os
import queue
import sys
import threading

from kazoo.client import KazooClient
from kazoo.exceptions import LockTimeout


def reply(line):
    with _out_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


_out_lock = threading.Lock()


IDENTIFIER = "kazoo-peer"


def make_lock(client, path, kind):
    if kind == "mutex":
        return client.Lock(path, IDENTIFIER)
    if kind == "mutex-extra":
        # The mixed-deployment mode: Curator-style `-lock-` nodes count as contenders too.
        return client.Lock(path, IDENTIFIER, extra_lock_patterns=["-lock-"])
    if kind == "read":
        return client.ReadLock(path, IDENTIFIER)
    if kind == "write":
        return client.WriteLock(path, IDENTIFIER)
    raise ValueError("unknown recipe " + kind)


def lock_command(lock, path, words):
    if words[0] == "acquire":
        if len(words) > 1:
            try:
                held = lock.acquire(timeout=int(words[1]) / 1000.0)
            except LockTimeout:
                held = False
        else:
            held = lock.acquire()
        return "acquired %s/%s" % (path, lock.node) if held else "timeout"
    if not lock.release():
        raise RuntimeError("release: the lock was not held")
    return "released"


def failure(error):
    return ("error %s: %s" % (type(error).__name__, error)).replace("\n", " ")


def work(lock, path, commands):
    while True:
        request_id, words = commands.get()
        try:
            reply("%s %s" % (request_id, lock_command(lock, path, words)))
        except Exception as error:  # reported to the test, which fails on it
            reply("%s %s" % (request_id, failure(error)))


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: lock_peer.py <hosts> <lock path> <mutex|mutex-extra|read|write>\n")
        sys.exit(2)
    hosts, path, kind = sys.argv[1:]
    client = KazooClient(hosts=hosts, timeout=10.0)
    try:
        client.start(timeout=10)
    except Exception as error:
        reply("error could not connect to %s: %s" % (hosts, error))
        sys.exit(1)
    lock = make_lock(client, path, kind)
    commands = queue.Queue()
    threading.Thread(target=work, args=(lock, path, commands), daemon=True).start()
    reply("ready")
    quit_id = "-"
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        request_id, command = words[0], words[1:]
        if not command:
            reply("%s error no command" % request_id)
        elif command[0] == "quit":
            quit_id = request_id
            break
        elif command[0] in ("acquire", "release"):
            commands.put((request_id, command))
        elif command[0] == "participants":
            try:
                reply(" ".join([request_id, "participants"] + list(lock.contenders())))
            except Exception as error:
                reply("%s %s" % (request_id, failure(error)))
        else:
            reply("%s error unknown command %s" % (request_id, command[0]))
    reply("%s bye" % quit_id)
    # Closing the session removes any node still held; the worker may be stuck in a wait.
    try:
        client.stop()
        client.close()
    finally:
        os._exit(0)


if __name__ == "__main__":
    main()
