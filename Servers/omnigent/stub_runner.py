"""A stand-in runner for a real Omnigent 0.19.1 server, over the server's own runner API.

Omnigent hands a session's messages to the runner bound to it. A runner dials out to the server
(``WS /v1/runners/{runner_id}/tunnel``; a loopback peer of a local server needs no token), introduces
itself with a ``hello`` frame, and then answers the HTTP requests the server frames down the tunnel
(``request`` → ``response.head``, ``response.body``, ``response.end``). A session is bound to an online
runner with ``PATCH /v1/sessions/{id} {"runner_id": …}``. This stub does exactly that and accepts
everything: a forwarded event with 202 (as the real runner, which starts the turn in the background), a
native terminal's ensure and anything else with 200 ``{}``. It runs no agent and calls no model, so the
server's reply to a send is the server's own.

    python stub_runner.py SERVER_URL SESSION_ID [SESSION_ID ...] [--runner-id ID] [--lifetime SECONDS]

It prints ``bound <runner-id>`` once every session is bound, then ``request <METHOD> <path>`` for each
request the server sends it, and ends when its standard input closes (or after ``--lifetime`` seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import sys
import urllib.error
import urllib.request

import websockets

# The frame protocol major 0.19.1 speaks (omnigent.server.routes.runner_tunnel).
FRAME_PROTOCOL_VERSION = 1
# How often, and how many times, the bind is tried while the server registers the tunnel.
BIND_ATTEMPTS = 100
BIND_INTERVAL_S = 0.05
# What the server's relay waits for before it forwards a turn: the runner stream's heartbeat.
HEARTBEAT = 'data: {"type": "session.heartbeat"}\n\n'


def say(line: str) -> None:
    """Writes one line to standard output at once (the test reads it)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def bind(server: str, session_id: str, runner_id: str) -> tuple[int, str]:
    """PATCHes the session onto the runner; returns the status and the body."""
    request = urllib.request.Request(
        f"{server}/v1/sessions/{session_id}",
        data=json.dumps({"runner_id": runner_id}).encode(),
        method="PATCH",
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


async def bind_all(server: str, sessions: list[str], runner_id: str) -> None:
    """Binds every session, retrying while the server has not registered the tunnel yet."""
    for session_id in sessions:
        for _ in range(BIND_ATTEMPTS):
            status, body = await asyncio.to_thread(bind, server, session_id, runner_id)
            if status < 300:
                break
            await asyncio.sleep(BIND_INTERVAL_S)
        else:
            raise RuntimeError(f"could not bind {session_id}: {status} {body}")
    say(f"bound {runner_id}")


def answer(frame: dict) -> list[dict]:
    """The frames that answer one ``request`` frame. The session's event stream (``GET …/stream``, which the
    server's relay subscribes to before it forwards a turn) stays open: its head and a heartbeat, never an end."""
    path = frame.get("path", "")
    method = frame.get("method", "")
    if method == "GET" and path.endswith("/stream"):
        return [
            {
                "kind": "response.head",
                "id": frame["id"],
                "status": 200,
                "headers": [["content-type", "text/event-stream"]],
            },
            {"kind": "response.body", "id": frame["id"], "body": HEARTBEAT, "encoding": "utf-8"},
        ]
    status = 202 if method == "POST" and path.endswith("/events") else 200
    body = json.dumps({"accepted": True} if status == 202 else {})
    return [
        {
            "kind": "response.head",
            "id": frame["id"],
            "status": status,
            "headers": [["content-type", "application/json"]],
        },
        {"kind": "response.body", "id": frame["id"], "body": body, "encoding": "utf-8"},
        {"kind": "response.end", "id": frame["id"]},
    ]


async def serve(server: str, sessions: list[str], runner_id: str) -> None:
    """Dials the tunnel, says hello, binds the sessions and answers until cancelled."""
    address = server.replace("http://", "ws://", 1) + f"/v1/runners/{runner_id}/tunnel"
    async with websockets.connect(address, max_size=None) as tunnel:
        hello = {
            "kind": "hello",
            "runner_version": "0.19.1",
            "frame_protocol_version": FRAME_PROTOCOL_VERSION,
            "harnesses": [],
            "envs": [],
            "telemetry_opt_out": True,
        }
        await tunnel.send(json.dumps(hello))
        binding = asyncio.create_task(bind_all(server, sessions, runner_id))
        async for text in tunnel:
            if binding.done() and binding.exception() is not None:
                raise binding.exception()
            frame = json.loads(text)
            kind = frame.get("kind")
            if kind == "ping":
                await tunnel.send(json.dumps({"kind": "pong", "ts": frame.get("ts")}))
            elif kind == "request":
                say(f"request {frame.get('method')} {frame.get('path')}")
                for reply in answer(frame):
                    await tunnel.send(json.dumps(reply))


async def main() -> int:
    """Runs the stub until standard input closes or the lifetime ends; the exit code."""
    parser = argparse.ArgumentParser(description="a stand-in runner for Omnigent 0.19.1")
    parser.add_argument("server")
    parser.add_argument("sessions", nargs="+")
    parser.add_argument("--runner-id", default="stub-" + secrets.token_hex(8))
    parser.add_argument("--lifetime", type=float, default=300.0)
    arguments = parser.parse_args()
    runner = asyncio.create_task(serve(arguments.server.rstrip("/"), arguments.sessions, arguments.runner_id))
    closed = asyncio.create_task(asyncio.to_thread(sys.stdin.read))
    await asyncio.wait({runner, closed}, timeout=arguments.lifetime, return_when=asyncio.FIRST_COMPLETED)
    if runner.done():
        failure = runner.exception()
        if failure is not None:
            sys.stderr.write(f"stub runner: {failure}\n")
            return 1
    return 0


if __name__ == "__main__":
    code = asyncio.run(main())
    sys.stdout.flush()
    # The thread still reading standard input would hold the interpreter open: leave at once.
    os._exit(code)
