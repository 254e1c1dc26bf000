"""P11's Python peer: the websockets 17 client doing P11's three cases against the wsbench server.

    ws_peer.py <ws-base-url> [--cases abc] [--round-trips 10000] [--pushed 100000] [--big 16777216]

- a: `--round-trips` sequential round trips on /echo of a 100-byte JSON text message, each reply decoded and
  its id checked;
- b: one request on /push for `--pushed` messages of 200 bytes, each read and decoded (`json.loads`), its seq
  checked;
- c: one binary message of `--big` bytes sent to /echo and read back whole, its bytes checked.

Each case runs on a connection opened (and warmed with one exchange) before its clock starts, as the other
contenders do; prints one JSON line `{"a": s, "a_cpu": s, …}`: the wall seconds each case took and the CPU seconds
this process spent in it.
"""

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable

from websockets.asyncio.client import connect

OPTIONS = {"compression": None, "max_size": None, "ping_interval": None}


def echo_message(i: int) -> str:
    """A JSON text message of exactly 100 bytes carrying `i`."""
    head = f'{{"id":{i},"type":"echo","pad":"'
    return head + "x" * (100 - len(head) - 2) + '"}'


async def round_trips(base: str, count: int) -> float:
    async with connect(base + "/echo", **OPTIONS) as ws:
        await ws.send(echo_message(0))
        await ws.recv()
        start = time.perf_counter()
        for i in range(1, count + 1):
            await ws.send(echo_message(i))
            if json.loads(await ws.recv())["id"] != i:
                raise SystemExit(f"round trip {i}: another message came back")
        return time.perf_counter() - start


async def pushed(base: str, count: int) -> float:
    async with connect(base + "/push", **OPTIONS) as ws:
        await ws.send(json.dumps({"count": 1, "size": 200}))
        await ws.recv()
        start = time.perf_counter()
        await ws.send(json.dumps({"count": count, "size": 200}))
        for i in range(count):
            if json.loads(await ws.recv())["seq"] != i:
                raise SystemExit(f"pushed message {i} came out of order")
        return time.perf_counter() - start


async def big(base: str, size: int) -> float:
    payload = os.urandom(size)
    async with connect(base + "/echo", **OPTIONS) as ws:
        await ws.send(b"warm")
        await ws.recv()
        start = time.perf_counter()
        await ws.send(payload)
        echoed = await ws.recv()
        seconds = time.perf_counter() - start
        if echoed != payload:
            raise SystemExit("the big message came back different")
        return seconds


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base", help="ws://127.0.0.1:<port> of the wsbench server")
    parser.add_argument("--cases", default="abc")
    parser.add_argument("--round-trips", type=int, default=10_000)
    parser.add_argument("--pushed", type=int, default=100_000)
    parser.add_argument("--big", type=int, default=16 << 20)
    args = parser.parse_args()
    base = args.base.rstrip("/").replace("http://", "ws://", 1)
    results: dict[str, float] = {}
    cases: dict[str, Callable[[], Awaitable[float]]] = {
        "a": lambda: round_trips(base, args.round_trips),
        "b": lambda: pushed(base, args.pushed),
        "c": lambda: big(base, args.big),
    }
    for case, run in cases.items():
        if case in args.cases:
            cpu = time.process_time()
            results[case] = await run()
            # The CPU of the whole case, its connection's opening included (small beside the case itself).
            results[case + "_cpu"] = time.process_time() - cpu
    json.dump(results, sys.stdout)
    print()


if __name__ == "__main__":
    asyncio.run(main())
