"""The line protocol of the one-command peers (recipe_peer.py, queue_peer.py), written once.

A peer connects, prints `ready`, and runs its one command when `go` arrives on stdin; any
failure of the command prints `error <type>: <message>`, which fails the test that reads it.
"""

import sys

from kazoo.client import KazooClient


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def serve(run, session_timeout):
    """Runs `run(client, command, path, arg)` for `<hosts> <command> <path> [arg]` in argv."""
    hosts, command, path = sys.argv[1], sys.argv[2], sys.argv[3]
    arg = sys.argv[4] if len(sys.argv) > 4 else None
    client = KazooClient(hosts=hosts, timeout=session_timeout)
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
