#!/usr/bin/env python3
"""CompanionKit's WebSocket fault server, on PyPI's `websockets` (a real RFC 6455 server).

Usage: python ws_fault_server.py --port PORT --state-dir DIR   (binds 127.0.0.1 only)

Plain HTTP (no upgrade):
  GET /health                    200 ok
  GET /_control/log?after=N      {"items": [...], "version": n}: what every /app connection did, oldest first:
                                 {"conn", "what": "open"|"auth"|"message"|"closed", "type", "id"}, never a token
  POST /_control/reset           forgets the log and the counters

WebSocket routes:
  /echo          every message back as it came (text as text, binary as binary)
  /silent        the TCP connection is accepted and the upgrade request read, then never answered; with
                 ?answer_after=S, answered after S seconds with a 503 (a client that waited past its own open timeout
                 gets the 503, not a timeout)
  /refuse        403 with {"message": "This server does not accept live connections from this app."}
  /nopong        echo, but control pings are never answered
  /app           the numbered-JSON protocol below

/app: the server sends {"type": "auth_required"}; the client sends {"type": "auth", "access_token": T}. T equal to
TOKEN gets {"type": "auth_ok"}; any other gets {"type": "auth_invalid", "message": "Invalid access token"} and a
close 1000. Then each client message is {"id": N, "type": X, ...} (ids must increase) and gets:
  ping              {"id": N, "type": "pong"} (none once `stop_pongs` was asked)
  echo              {"id": N, "type": "result", "success": true, "result": <the message's "payload">}
  fail              {"id": N, "type": "result", "success": false, "error": {"code": "nope", "message": "It failed."}}
  subscribe         a result (null), then {"id": N, "type": "event", "event": {"n": k}} every `every_ms` (default
                    50), `count` times (default unlimited), until {"type": "unsubscribe", "subscription": N}
  unsubscribe       a result (null); the subscription stops
  coalesce          ONE text frame holding a JSON array: an event ({"n": -1}) for this connection's latest
                    subscription, then this request's result ({"ok": true}), in that order
  hang              nothing (the request stays pending)
  write             counted (its `key` in the log), then the connection is dropped before any reply
  drop              the connection is dropped (TCP closed, no close frame) before any reply: what a client sees
                    when the server restarts
  close_mid         the first fragment of a text message, then the TCP connection is closed
  oversized         one binary frame of `bytes` bytes (default 2 MiB)
  stop_pongs        a result, then neither control pings nor `ping` requests are answered on this connection
"""

import argparse
import asyncio
import json
import signal
import sys
from http import HTTPStatus

from websockets.asyncio.server import serve
from websockets.datastructures import Headers
from websockets.frames import Opcode
from websockets.http11 import Response

TOKEN = "fault-access-token-0123456789"

LOG: list[dict] = []
VERSION = {"n": 0}
CHANGED = asyncio.Event()
COUNTER = {"conn": 0}


def log(**item):
    LOG.append(item)
    VERSION["n"] += 1
    CHANGED.set()


def http(status: int, body: dict | str, content_type: str = "application/json") -> Response:
    data = body if isinstance(body, str) else json.dumps(body)
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(data.encode())))])
    return Response(status, HTTPStatus(status).phrase, headers, data.encode())


async def process_request(connection, request):
    path, _, query = request.path.partition("?")
    if request.headers.get("Upgrade", "").lower() == "websocket":
        if path == "/refuse":
            return http(403, {"message": "This server does not accept live connections from this app."})
        if path == "/silent":
            after = dict(p.split("=", 1) for p in query.split("&") if "=" in p).get("answer_after")
            if after is None:
                await asyncio.Event().wait()
            await asyncio.sleep(float(after))
            return http(503, {"message": "The answer came too late."})
        return None
    if path == "/health":
        return http(200, "ok", "text/plain")
    if path == "/_control/log":
        after = int(dict(p.split("=", 1) for p in query.split("&") if "=" in p).get("after", "0"))
        return http(200, {"items": LOG[after:], "version": len(LOG)})
    if path == "/_control/reset":
        LOG.clear()
        return http(200, {"reset": True})
    return http(404, {"message": "not found"})


async def echo(ws):
    async for message in ws:
        await ws.send(message)


def drop_pongs(ws, state):
    original = ws.protocol.send_frame

    def send_frame(frame):
        if frame.opcode == Opcode.PONG and state["no_pongs"]:
            return
        original(frame)

    ws.protocol.send_frame = send_frame


async def subscription(ws, sub_id, every_ms, count, subs):
    n = 0
    try:
        while count is None or n < count:
            await asyncio.sleep(every_ms / 1000)
            if sub_id not in subs:
                return
            await ws.send(json.dumps({"id": sub_id, "type": "event", "event": {"n": n}}))
            n += 1
    except Exception:  # the connection went away
        return


async def app(ws):
    COUNTER["conn"] += 1
    conn = COUNTER["conn"]
    state = {"no_pongs": False}
    drop_pongs(ws, state)
    subs: dict[int, asyncio.Task] = {}
    log(conn=conn, what="open")
    try:
        await ws.send(json.dumps({"type": "auth_required"}))
        first = json.loads(await ws.recv())
        if first.get("type") != "auth" or first.get("access_token") != TOKEN:
            log(conn=conn, what="auth", type="refused")
            await ws.send(json.dumps({"type": "auth_invalid", "message": "Invalid access token"}))
            await ws.close(1000)
            return
        log(conn=conn, what="auth", type="ok")
        await ws.send(json.dumps({"type": "auth_ok"}))
        async for raw in ws:
            msg = json.loads(raw)
            kind, mid = msg.get("type"), msg.get("id")
            log(conn=conn, what="message", type=kind, id=mid, key=msg.get("key"))
            if kind == "ping":
                if not state["no_pongs"]:
                    await ws.send(json.dumps({"id": mid, "type": "pong"}))
            elif kind == "echo":
                await ws.send(json.dumps({"id": mid, "type": "result", "success": True, "result": msg.get("payload")}))
            elif kind == "fail":
                error = {"code": "nope", "message": "It failed."}
                await ws.send(json.dumps({"id": mid, "type": "result", "success": False, "error": error}))
            elif kind == "subscribe":
                await ws.send(json.dumps({"id": mid, "type": "result", "success": True, "result": None}))
                task = asyncio.create_task(subscription(ws, mid, msg.get("every_ms", 50), msg.get("count"), subs))
                subs[mid] = task
            elif kind == "unsubscribe":
                task = subs.pop(msg.get("subscription"), None)
                if task:
                    task.cancel()
                await ws.send(json.dumps({"id": mid, "type": "result", "success": True, "result": None}))
            elif kind == "coalesce":
                event = {"id": max(subs, default=None), "type": "event", "event": {"n": -1}}
                result = {"id": mid, "type": "result", "success": True, "result": {"ok": True}}
                await ws.send(json.dumps([event, result]))
            elif kind == "hang":
                pass
            elif kind in ("write", "drop"):
                ws.transport.abort()
                return
            elif kind == "close_mid":
                # A server frame by hand: text, FIN clear, 7 bytes of a JSON object; then the TCP connection ends.
                ws.transport.write(bytes([0x01, 7]) + b'{"id": ')
                await asyncio.sleep(0.05)
                ws.transport.abort()
                return
            elif kind == "oversized":
                await ws.send(b"\0" * int(msg.get("bytes", 2 << 20)))
            elif kind == "stop_pongs":
                state["no_pongs"] = True
                await ws.send(json.dumps({"id": mid, "type": "result", "success": True, "result": None}))
    except Exception:  # a dropped connection ends the handler
        pass
    finally:
        for task in subs.values():
            task.cancel()
        log(conn=conn, what="closed")


async def nopong(ws):
    drop_pongs(ws, {"no_pongs": True})
    await echo(ws)


ROUTES = {"/echo": echo, "/app": app, "/nopong": nopong}


async def handler(ws):
    route = ROUTES.get(ws.request.path.partition("?")[0])
    if route is None:
        await ws.close(1008, "no such route")
        return
    await route(ws)


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--state-dir", required=True)
    args = parser.parse_args()
    stop = asyncio.get_running_loop().create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set_result, None)
    async with serve(
        handler,
        "127.0.0.1",
        args.port,
        process_request=process_request,
        ping_interval=None,
        max_size=32 << 20,
        open_timeout=None,
        compression=None,
    ):
        print(f"READY {args.port}", flush=True)
        await stop
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
