"""The P11 WebSocket peer: Python websockets 17 on 127.0.0.1 (no compression, no size limit, no keepalive pings).

- `/echo`: every message comes back as it came (text as text, binary as binary): P11 (a) and (c).
- `/push`: each text request `{"count": N, "size": S}` is answered with N text messages of exactly S bytes,
  `{"seq":<i>,"pad":"xxx…"}` with i from 0: P11 (b). The frames are encoded once by websockets' own framing
  (`Frame.serialize`) and written to the connection in one piece, so what a run measures is the client reading
  and decoding them, not this server's Python loop.

Prints `READY <port>` once listening (the lifecycle waits for it).
"""

import argparse
import asyncio
import json
from functools import cache

from websockets.asyncio.server import ServerConnection, serve
from websockets.frames import Frame, Opcode


def pushed_message(seq: int, size: int) -> bytes:
    """`{"seq":<seq>,"pad":"xxx…"}` padded with x to exactly `size` bytes."""
    head = f'{{"seq":{seq},"pad":"'.encode()
    pad = size - len(head) - 2
    if pad < 0:
        raise ValueError(f"a message of {size} bytes cannot hold seq {seq}")
    return head + b"x" * pad + b'"}'


@cache
def push_frames(count: int, size: int) -> bytes:
    """`count` server frames (unmasked text) of `size`-byte messages, back to back."""
    return b"".join(
        Frame(Opcode.TEXT, pushed_message(seq, size)).serialize(mask=False, extensions=[]) for seq in range(count)
    )


async def handler(ws: ServerConnection) -> None:
    path = ws.request.path if ws.request else "/"
    if path.startswith("/push"):
        async for message in ws:
            ask = json.loads(message)
            frames = push_frames(int(ask["count"]), int(ask["size"]))
            # One write of whole frames: websockets sends nothing else on this connection meanwhile (no pings).
            ws.transport.write(frames)
    else:
        async for message in ws:
            await ws.send(message)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    async with serve(
        handler, "127.0.0.1", args.port, compression=None, max_size=None, ping_interval=None, write_limit=1 << 20
    ) as server:
        print(f"READY {args.port}", flush=True)
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
