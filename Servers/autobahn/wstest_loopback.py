# Runs Autobahn|Testsuite's `wstest` (Python 2.7) with every listening socket bound to one address (127.0.0.1 unless
# WSTEST_BIND says otherwise): upstream binds the wildcard address whatever host the spec's url names. Prints
# `READY <port>` once the reactor runs (WSTEST_READY_PORT), for the server lifecycle. Run with the 2.7 environment's
# python.
import os
import sys

from autobahntestsuite.wstest import run  # installs the epoll reactor first
from twisted.internet import reactor

BIND = os.environ.get("WSTEST_BIND", "127.0.0.1")
_tcp, _ssl = reactor.listenTCP, reactor.listenSSL


def listen_tcp(port, factory, backlog=50, interface=""):
    return _tcp(port, factory, backlog, interface or BIND)


def listen_ssl(port, factory, context_factory, backlog=50, interface=""):
    return _ssl(port, factory, context_factory, backlog, interface or BIND)


def ready():
    sys.stdout.write("READY " + os.environ.get("WSTEST_READY_PORT", "0") + "\n")
    sys.stdout.flush()


reactor.listenTCP = listen_tcp
reactor.listenSSL = listen_ssl
reactor.callWhenRunning(ready)

if __name__ == "__main__":
    sys.argv[0] = "wstest"
    sys.exit(run())
