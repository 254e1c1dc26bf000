"""Autobahn|Testsuite section 9's Python peer: the websockets 17 client echoing fuzzingserver cases.

    autobahn_peer.py <ws-base-url> <agent> <case-number>...

Each case in turn: connect to `/runCase?case=<n>&agent=<agent>`, send every message back as it came until the
server closes, then the next case. No compression, no size limit, no keepalive pings (as the kit's client).
Prints one JSON line `{"<n>": s, …}`: the wall seconds of each case, from the connect to the close.
"""

import asyncio
import json
import sys
import time

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed


async def echo(url: str) -> float:
    """Echoes one case's messages until the server closes; the seconds it took."""
    start = time.perf_counter()
    try:
        async with connect(url, compression=None, max_size=None, ping_interval=None, open_timeout=30) as ws:
            async for message in ws:
                await ws.send(message)
    except (ConnectionClosed, OSError):
        pass  # a case may end with a failed connection; the server's report says how it went
    return time.perf_counter() - start


async def main() -> None:
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    base, agent, numbers = sys.argv[1], sys.argv[2], sys.argv[3:]
    walls = {}
    for number in numbers:
        walls[number] = await echo(f"{base}/runCase?case={number}&agent={agent}")
    print(json.dumps(walls), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
