"""A kazoo lock contender driven over stdin/stdout, for the TypeScript interop tests.

Usage: /usr/bin/python3 lock_peer.py <hosts> <lock path> <mutex | read | write>

mutex is kazoo's Lock, read and write its ReadLock and WriteLock. The line protocol is the one
of test/interop/java/LockPeer.java, one reply line per command, in order:
  (on start)    -> ready
  acquire       -> acquired <node path>          (waits as long as it takes)
  acquire <ms>  -> acquired <node path> | timeout
  release       -> released
  participants  -> participants <node name> ...  (kazoo's contenders(), i.e. their data)
  quit          -> bye, then the session is closed and the process exits (also on EOF)
Any failure   -> error <message>

Lock operations run on one worker thread so that the main thread can still read `quit` while an
acquire is waiting.
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


def make_lock(client, path, kind):
    if kind == "mutex":
        return client.Lock(path)
    if kind == "read":
        return client.ReadLock(path)
    if kind == "write":
        return client.WriteLock(path)
    raise ValueError("unknown recipe " + kind)


def handle(lock, path, words):
    command = words[0]
    if command == "acquire":
        if len(words) > 1:
            try:
                held = lock.acquire(timeout=int(words[1]) / 1000.0)
            except LockTimeout:
                held = False
        else:
            held = lock.acquire()
        return "acquired %s/%s" % (path, lock.node) if held else "timeout"
    if command == "release":
        if not lock.release():
            raise RuntimeError("release: the lock was not held")
        return "released"
    if command == "participants":
        return " ".join(["participants"] + list(lock.contenders()))
    raise ValueError("unknown command " + command)


def work(lock, path, commands):
    while True:
        words = commands.get()
        try:
            reply(handle(lock, path, words))
        except Exception as error:  # reported to the test, which fails on it
            reply(("error %s: %s" % (type(error).__name__, error)).replace("\n", " "))


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: lock_peer.py <hosts> <lock path> <mutex|read|write>\n")
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
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "quit":
            break
        commands.put(words)
    reply("bye")
    # Closing the session removes any node still held; the worker may be stuck in a wait.
    try:
        client.stop()
        client.close()
    finally:
        os._exit(0)


if __name__ == "__main__":
    main()
