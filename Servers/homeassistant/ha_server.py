#!/usr/bin/env python3
"""The test Home Assistant: two real Home Assistant 2025.4.4 instances, set up for the tests, and a helper site.

    ha_server.py --port P --state DIR [--hass PATH] [--areas N] [--tls-areas N]

Run by Servers/lib.sh (kind `homeassistant`) with the venv's python; it is the process group's leader and its two
`hass` children are in that group. At every start, in a fresh DIR/main and DIR/tls:

1. a private PKI (Servers/nginx/make-pki.sh, in DIR/pki) and random passwords (in DIR/secrets);
2. the configurations (generate_config.py): `main` on 127.0.0.1:P over plain http with N x 100 entities,
   `tls` on another free port over https with the PKI's server certificate and a REQUIRED client certificate
   (`http: ssl_peer_certificate`: the PKI's root), with --tls-areas x 100 entities;
3. both started with `hass -c <config> --skip-pip`; when /manifest.json answers 200: onboarding through the
   onboarding API (owner `ci`), the layout's areas made and every generated entity given its area
   (`config/entity_registry/update`), a second user `ci-totp` (a regular user) with the TOTP second factor set
   up through `auth/setup_mfa`, and a long-lived token for the owner;
4. the helper site on another free port: the push catcher, the `client_id` page and the control API;
5. `READY <main port> <tls port> <helper port>` on stdout.

The helper site (127.0.0.1 only):
- `POST /push`: what Home Assistant's mobile_app notify sends to a registration's `push_url`; recorded, answered
  201 with the rate-limit body the real push relay sends;
- `GET /app/`: a `client_id` page listing `companionkit://auth-callback` as `<link rel="redirect_uri">`;
- `GET /_control/pushes?after=N&wait_ms=M` -> {"items": [{"seq", "at", "path", "body"}...], "version"}; with
  `after`, it waits until there is a push past N or M ms passed (default 5000, at most 10000);
  `DELETE /_control/pushes` forgets them (204);
- `POST /_control/restart`, `/_control/stop`, `/_control/start` with an optional JSON body {"instance": "main" |
  "tls"} (default main): stops (SIGTERM, SIGKILL after 30 s) and/or starts that Home Assistant on the same port
  and config, answering when it is stopped / RUNNING again (at most 180 s) with {"instance", "stopped_ms",
  "ready_ms"}; 500 {"error"} when it could not;
- `POST /_control/fresh`: a third Home Assistant, never onboarded, for the terminal's `onboard` (H-CLI-7): any
  earlier one is stopped and its folder DIR/fresh removed, then a new config (one area) on a free port is started
  and answered when its onboarding API answers -> {"url", "ready_ms"}; it is stopped with the others at exit;
- `GET /_control/status` -> {"main": {"url", "running"}, "tls": {...}} (and "fresh" once made).
- `POST /_control/command` {"instance"?, "type", ...fields}: one WebSocket API command sent as the owner (for
  what REST cannot do, such as disabling an entity with `config/entity_registry/update`) -> {"result"}; 422
  {"error"} with Home Assistant's own message when it fails;
- `POST /_control/listen` {"instance"?, "event_type"}: subscribes as the owner to that event type (from then on)
  -> {"listening"}; `GET /_control/events?after=N&wait_ms=M` -> {"items": [{"seq", "event"}...], "version"}, with
  the same bounded wait as the pushes.

A Home Assistant that exits when not asked to makes this process exit 1 (the lifecycle then sees it stopped).
Secrets (passwords, tokens, the TOTP secrets) go only to 0600 files in DIR/secrets (0700), never to stdout, stderr or
a log; scripts/secret-scan reads them there, and Home Assistant's own .storage, to search everything else.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pyotp
from aiohttp import web

HERE = Path(__file__).resolve().parent
OWNER = "ci"
TOTP_USER = "ci-totp"
CALLBACK = "companionkit://auth-callback"
START_TIMEOUT = 240.0
RESTART_TIMEOUT = 180.0
STOP_TIMEOUT = 30.0


def log(message: str) -> None:
    print(f"ha_server: {message}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_secret(path: Path, value: str) -> None:
    """Writes a 0600 file (made 0600 before the value goes in)."""
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(value)


class Failure(Exception):
    """A step of the setup that did not work; the message names it (never a secret)."""


class Socket:
    """One WebSocket API connection, authenticated; `call` sends a command and returns its result."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.next_id = 0

    @classmethod
    async def open(cls, session: aiohttp.ClientSession, base: str, token: str) -> Socket:
        ws = await session.ws_connect(base.replace("http", "ws", 1) + "/api/websocket", max_msg_size=0)
        first = await ws.receive_json()
        if first.get("type") != "auth_required":
            raise Failure(f"the WebSocket began with {first.get('type')!r}, not auth_required")
        await ws.send_json({"type": "auth", "access_token": token})
        reply = await ws.receive_json()
        if reply.get("type") != "auth_ok":
            raise Failure(f"WebSocket auth answered {reply.get('type')!r}: {reply.get('message')}")
        return cls(ws)

    async def send(self, type_: str, **fields: Any) -> int:
        self.next_id += 1
        await self.ws.send_json({"id": self.next_id, "type": type_, **fields})
        return self.next_id

    async def results(self, ids: list[int]) -> dict[int, Any]:
        """Reads until every id has its result; a failed one raises with HA's own message."""
        waiting, out = set(ids), {}
        while waiting:
            message = await self.ws.receive_json()
            for item in message if isinstance(message, list) else [message]:
                if item.get("type") != "result" or item.get("id") not in waiting:
                    continue
                if not item.get("success"):
                    error = item.get("error") or {}
                    raise Failure(f"WebSocket command {item['id']}: {error.get('code')}: {error.get('message')}")
                waiting.discard(item["id"])
                out[item["id"]] = item.get("result")
        return out

    async def call(self, type_: str, **fields: Any) -> Any:
        id_ = await self.send(type_, **fields)
        return (await self.results([id_]))[id_]

    async def close(self) -> None:
        await self.ws.close()


class Instance:
    """One Home Assistant process: its config dir, port, log, and how to reach it."""

    def __init__(self, name: str, root: Path, port: int, hass: str, client_ssl: ssl.SSLContext | None) -> None:
        self.name = name
        self.dir = root / name
        self.config = self.dir / "config"
        self.port = port
        self.hass = hass
        self.url = f"{'https' if client_ssl else 'http'}://127.0.0.1:{port}"
        self.client_ssl = client_ssl
        self.proc: asyncio.subprocess.Process | None = None
        self.expected_exit = False
        self.token = ""
        self.lock = asyncio.Lock()
        self.on_unexpected_exit: asyncio.Future[str] | None = None

    def session(self) -> aiohttp.ClientSession:
        connector = aiohttp.TCPConnector(ssl=self.client_ssl if self.client_ssl else False)
        return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=30))

    def log_tail(self, lines: int = 30) -> str:
        path = self.dir / "hass.log"
        try:
            return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    async def start(self) -> None:
        self.expected_exit = False
        out = open(self.dir / "hass.log", "ab")  # handed to the child, closed below
        try:
            env = {**os.environ, "HOME": str(self.dir / "home")}
            (self.dir / "home").mkdir(exist_ok=True)
            self.proc = await asyncio.create_subprocess_exec(
                self.hass,
                "-c",
                str(self.config),
                "--skip-pip",
                "--log-no-color",
                "--log-file",
                str(self.dir / "home-assistant.log"),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        finally:
            out.close()
        (self.dir / "hass.pid").write_text(f"{self.proc.pid}\n")
        asyncio.get_running_loop().create_task(self.watch(self.proc))

    async def watch(self, proc: asyncio.subprocess.Process) -> None:
        code = await proc.wait()
        if (
            proc is self.proc
            and not self.expected_exit
            and self.on_unexpected_exit
            and not self.on_unexpected_exit.done()
        ):
            self.on_unexpected_exit.set_result(f"Home Assistant '{self.name}' exited with {code}:\n{self.log_tail()}")

    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def stop(self) -> None:
        if not self.running() or self.proc is None:
            return
        self.expected_exit = True
        self.proc.terminate()
        try:
            await asyncio.wait_for(self.proc.wait(), STOP_TIMEOUT)
        except TimeoutError:
            log(f"{self.name}: still running {STOP_TIMEOUT:.0f} s after SIGTERM; SIGKILL")
            self.proc.kill()
            await self.proc.wait()

    async def wait_until(self, deadline: float, what: str, probe) -> Any:
        """Polls probe(session) every 0.1 s until it returns something, HA exits, or the deadline passes."""
        async with self.session() as session:
            while True:
                if not self.running():
                    raise Failure(f"{self.name}: Home Assistant exited while waiting for {what}:\n{self.log_tail()}")
                with contextlib.suppress(aiohttp.ClientError, OSError, TimeoutError):
                    value = await probe(session)
                    if value is not None:
                        return value
                if time.monotonic() > deadline:
                    raise Failure(f"{self.name}: no {what} in time:\n{self.log_tail()}")
                await asyncio.sleep(0.1)

    async def wait_http(self, deadline: float) -> None:
        async def probe(session: aiohttp.ClientSession) -> bool | None:
            async with session.get(self.url + "/manifest.json", timeout=aiohttp.ClientTimeout(total=2)) as r:
                return True if r.status == 200 else None

        await self.wait_until(deadline, "200 from /manifest.json", probe)

    async def wait_running(self, deadline: float, token: str) -> None:
        async def probe(session: aiohttp.ClientSession) -> bool | None:
            headers = {"Authorization": f"Bearer {token}"}
            async with session.get(self.url + "/api/core/state", headers=headers) as r:
                if r.status != 200:
                    return None
                return True if (await r.json()).get("state") == "RUNNING" else None

        await self.wait_until(deadline, "RUNNING state", probe)


async def checked_json(response: aiohttp.ClientResponse, what: str) -> Any:
    if response.status not in (200, 201):
        raise Failure(f"{what} answered {response.status}: {(await response.text())[:300]}")
    return await response.json(content_type=None)


async def login(session: aiohttp.ClientSession, base: str, username: str, password: str, totp: str = "") -> str:
    """The login flow (with the TOTP step when `totp` is a secret) and the code exchange; returns an access token."""
    client_id = base + "/"
    body = {"client_id": client_id, "handler": ["homeassistant", None], "redirect_uri": client_id + "?auth_callback=1"}
    async with session.post(base + "/auth/login_flow", json=body) as r:
        step = await checked_json(r, "POST /auth/login_flow")
    answer: dict[str, Any] = {"client_id": client_id, "username": username, "password": password}
    for _ in range(3):
        async with session.post(f"{base}/auth/login_flow/{step['flow_id']}", json=answer) as r:
            step = await checked_json(r, "POST /auth/login_flow/<id>")
        if step.get("type") == "create_entry":
            return await exchange(session, base, step["result"])
        if step.get("type") == "form" and step.get("step_id") == "mfa" and totp:
            answer = {"client_id": client_id, "code": pyotp.TOTP(totp).now()}
            continue
        break
    raise Failure(f"login of {username} ended with {step.get('type')} {step.get('step_id')} {step.get('errors')}")


async def exchange(session: aiohttp.ClientSession, base: str, code: str) -> str:
    form = {"grant_type": "authorization_code", "code": code, "client_id": base + "/"}
    async with session.post(base + "/auth/token", data=form) as r:
        return (await checked_json(r, "POST /auth/token"))["access_token"]


async def onboard(instance: Instance, session: aiohttp.ClientSession, password: str) -> str:
    """The four onboarding steps; returns the owner's access token."""
    base, client_id = instance.url, instance.url + "/"
    user = {"client_id": client_id, "name": "CI Owner", "username": OWNER, "password": password, "language": "en"}
    deadline = time.monotonic() + 60
    while True:  # the onboarding views come up a moment after /manifest.json
        async with session.post(base + "/api/onboarding/users", json=user) as r:
            if r.status != 404 or time.monotonic() > deadline:
                code = (await checked_json(r, "POST /api/onboarding/users"))["auth_code"]
                break
        await asyncio.sleep(0.2)
    token = await exchange(session, base, code)
    headers = {"Authorization": f"Bearer {token}"}
    steps = (
        ("core_config", {}),
        ("analytics", {}),
        ("integration", {"client_id": client_id, "redirect_uri": client_id + "?auth_callback=1"}),
    )
    for step, body in steps:
        async with session.post(f"{base}/api/onboarding/{step}", json=body, headers=headers) as r:
            await checked_json(r, f"POST /api/onboarding/{step}")
    return token


async def assign_areas(instance: Instance, ws: Socket, deadline: float) -> int:
    """Makes the layout's areas and gives every generated entity its area; returns how many were assigned."""
    layout = json.loads((instance.config / "layout.json").read_text())
    areas = {a["name"]: a["area_id"] for a in await ws.call("config/area_registry/list")}
    for name in layout["areas"]:
        if name not in areas:
            areas[name] = (await ws.call("config/area_registry/create", name=name))["area_id"]
    wanted: dict[str, str] = layout["entities"]
    while True:  # the template entities register a moment after RUNNING at most
        registered = {e["entity_id"]: e for e in await ws.call("config/entity_registry/list")}
        missing = [e for e in wanted if e not in registered]
        if not missing:
            break
        if time.monotonic() > deadline:
            raise Failure(f"{instance.name}: {len(missing)} entities never reached the registry, e.g. {missing[:5]}")
        await asyncio.sleep(0.5)
    ids = [
        await ws.send("config/entity_registry/update", entity_id=entity_id, area_id=areas[area])
        for entity_id, area in wanted.items()
        if registered[entity_id].get("area_id") != areas[area]
    ]
    await ws.results(ids)
    return len(wanted)


async def add_totp_user(instance: Instance, session: aiohttp.ClientSession, owner: Socket, password: str) -> str:
    """A regular user with a password and the TOTP module set up through its own `auth/setup_mfa`; its secret."""
    user = (await owner.call("config/auth/create", name="CI TOTP", group_ids=["system-users"]))["user"]
    await owner.call(
        "config/auth_provider/homeassistant/create", user_id=user["id"], username=TOTP_USER, password=password
    )
    token = await login(session, instance.url, TOTP_USER, password)
    ws = await Socket.open(session, instance.url, token)
    try:
        form = await ws.call("auth/setup_mfa", mfa_module_id="totp")
        secret = (form.get("description_placeholders") or {}).get("code", "")
        if not secret:
            raise Failure(f"{instance.name}: auth/setup_mfa gave no secret (step {form.get('step_id')})")
        done = await ws.call("auth/setup_mfa", flow_id=form["flow_id"], user_input={"code": pyotp.TOTP(secret).now()})
        if done.get("type") != "create_entry":
            raise Failure(f"{instance.name}: the TOTP setup ended with {done.get('type')} {done.get('errors')}")
    finally:
        await ws.close()
    return secret


async def set_up(instance: Instance, passwords: dict[str, str], deadline: float) -> dict[str, Any]:
    """The first start of a fresh config: onboarding, areas, the TOTP user, the long-lived token."""
    t0 = time.monotonic()
    await instance.wait_http(deadline)
    http_s = time.monotonic() - t0
    async with instance.session() as session:
        owner_token = await onboard(instance, session, passwords[OWNER])
        await instance.wait_running(deadline, owner_token)
        running_s = time.monotonic() - t0
        ws = await Socket.open(session, instance.url, owner_token)
        try:
            assigned = await assign_areas(instance, ws, deadline)
            instance.token = await ws.call(
                "auth/long_lived_access_token", client_name="companionkit-tests", lifespan=3650
            )
            secret = await add_totp_user(instance, session, ws, passwords[TOTP_USER])
        finally:
            await ws.close()
        # Readiness proves the sign-in the tests use: the TOTP user's login flow with its code step.
        await login(session, instance.url, TOTP_USER, passwords[TOTP_USER], totp=secret)
        async with session.get(instance.url + "/api/states", headers={"Authorization": f"Bearer {owner_token}"}) as r:
            states = {s["entity_id"] for s in await checked_json(r, "GET /api/states")}
    missing = set(json.loads((instance.config / "layout.json").read_text())["entities"]) - states
    if missing:
        raise Failure(f"{instance.name}: {len(missing)} generated entities have no state, e.g. {sorted(missing)[:5]}")
    write_secret(instance.dir.parent / "secrets" / f"{instance.name}-token", instance.token)
    write_secret(instance.dir.parent / "secrets" / f"{instance.name}-totp-secret", secret)
    return {
        "http_s": round(http_s, 1),
        "running_s": round(running_s, 1),
        "ready_s": round(time.monotonic() - t0, 1),
        "entities_with_area": assigned,
        "states": len(states),
    }


class Helper:
    """The helper site: push catcher, client_id page, control API."""

    def __init__(self, instances: dict[str, Instance]) -> None:
        self.instances = instances
        self.pushes: list[dict[str, Any]] = []
        self.seq = 0
        self.version = 0
        self.changed = asyncio.Condition()
        self.events: list[dict[str, Any]] = []
        self.listeners: list[asyncio.Task[None]] = []
        self.fresh_lock = asyncio.Lock()

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/push", self.push)
        app.router.add_get("/app/", self.client_page)
        app.router.add_get("/_control/pushes", self.list_pushes)
        app.router.add_delete("/_control/pushes", self.clear_pushes)
        app.router.add_get("/_control/status", self.status)
        app.router.add_post("/_control/command", self.command)
        app.router.add_post("/_control/listen", self.listen)
        app.router.add_get("/_control/events", self.list_events)
        for action in ("restart", "stop", "start"):
            app.router.add_post(f"/_control/{action}", self.control(action))
        app.router.add_post("/_control/fresh", self.fresh)
        return app

    async def fresh(self, _: web.Request) -> web.Response:
        """A new Home Assistant that is not onboarded (H-CLI-7's test), replacing any earlier one."""
        async with self.fresh_lock:
            old = self.instances.pop("fresh", None)
            if old is not None:
                await old.stop()
            template = self.instances["main"]
            instance = Instance("fresh", template.dir.parent, free_port(), template.hass, None)
            shutil.rmtree(instance.dir, ignore_errors=True)
            instance.dir.mkdir(parents=True)
            command = [sys.executable, str(HERE / "generate_config.py"), str(instance.config)]
            subprocess.run([*command, "--port", str(instance.port), "--areas", "1"], check=True)
            self.instances["fresh"] = instance
            t0 = time.monotonic()
            try:
                await instance.start()
                deadline = time.monotonic() + RESTART_TIMEOUT

                async def probe(session: aiohttp.ClientSession) -> bool | None:
                    async with session.get(instance.url + "/api/onboarding") as r:
                        return True if r.status == 200 else None

                await instance.wait_until(deadline, "the onboarding API", probe)
            except Failure as error:
                log(f"fresh: {error}")
                return web.json_response({"error": str(error).splitlines()[0]}, status=500)
            out = {"url": instance.url, "ready_ms": round((time.monotonic() - t0) * 1000)}
            log(f"fresh: {out}")
            return web.json_response(out)

    async def bump(self) -> None:
        async with self.changed:
            self.version += 1
            self.changed.notify_all()

    async def push(self, request: web.Request) -> web.Response:
        raw = await request.read()
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode(errors="replace")
        self.seq += 1
        self.pushes.append({"seq": self.seq, "at": time.time(), "path": request.path, "body": body})
        await self.bump()
        # HA parses resetsAt as an ISO 8601 time (mobile_app/notify.py, log_rate_limits); a number makes it fail.
        reset = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)
        limits = {"successful": self.seq, "errors": 0, "maximum": 150, "resetsAt": reset.isoformat()}
        return web.json_response({"rateLimits": limits}, status=201)

    async def client_page(self, _: web.Request) -> web.Response:
        html = (
            "<!doctype html>\n<html><head><title>CompanionKit tests</title>\n"
            f'<link rel="redirect_uri" href="{CALLBACK}">\n</head><body>CompanionKit tests</body></html>\n'
        )
        return web.Response(text=html, content_type="text/html")

    async def wait_past(self, request: web.Request) -> None:
        """With `after=N`, waits until the version passes N or `wait_ms` (default 5000, at most 10000) passed."""
        after = request.query.get("after")
        if after is not None:
            wait = min(max(int(request.query.get("wait_ms", "5000")), 0), 10000) / 1000
            with contextlib.suppress(TimeoutError):
                async with self.changed:
                    await asyncio.wait_for(self.changed.wait_for(lambda: self.version > int(after)), wait)

    async def list_pushes(self, request: web.Request) -> web.Response:
        await self.wait_past(request)
        return web.json_response({"items": self.pushes, "version": self.version})

    async def clear_pushes(self, _: web.Request) -> web.Response:
        self.pushes = []
        await self.bump()
        return web.Response(status=204)

    async def command(self, request: web.Request) -> web.Response:
        body = dict(await request.json())
        instance = self.instances.get(body.pop("instance", "main"))
        type_ = body.pop("type", None)
        if instance is None or not isinstance(type_, str):
            return web.json_response({"error": "give a known instance and a command type"}, status=422)
        async with instance.session() as session:
            socket = await Socket.open(session, instance.url, instance.token)
            try:
                result = await socket.call(type_, **body)
            except Failure as error:
                return web.json_response({"error": str(error)}, status=422)
            finally:
                await socket.close()
        return web.json_response({"result": result})

    async def listen(self, request: web.Request) -> web.Response:
        body = await request.json()
        instance = self.instances.get(body.get("instance", "main"))
        event_type = body.get("event_type")
        if instance is None or not isinstance(event_type, str):
            return web.json_response({"error": "give a known instance and an event_type"}, status=422)
        subscribed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def run() -> None:
            async with instance.session() as session:
                socket = await Socket.open(session, instance.url, instance.token)
                await socket.call("subscribe_events", event_type=event_type)
                subscribed.set_result(None)
                async for frame in socket.ws:
                    if frame.type != aiohttp.WSMsgType.TEXT:
                        break
                    message = json.loads(frame.data)
                    for item in message if isinstance(message, list) else [message]:
                        if item.get("type") == "event":
                            self.seq += 1
                            self.events.append({"seq": self.seq, "event": item.get("event")})
                            await self.bump()

        task = asyncio.create_task(run())
        self.listeners.append(task)
        await asyncio.wait_for(asyncio.shield(subscribed), 30)
        return web.json_response({"listening": event_type})

    async def list_events(self, request: web.Request) -> web.Response:
        await self.wait_past(request)
        return web.json_response({"items": self.events, "version": self.version})

    async def status(self, _: web.Request) -> web.Response:
        return web.json_response({n: {"url": i.url, "running": i.running()} for n, i in self.instances.items()})

    def control(self, action: str):
        async def handle(request: web.Request) -> web.Response:
            body = await request.json() if request.can_read_body else {}
            instance = self.instances.get((body or {}).get("instance", "main"))
            if instance is None:
                return web.json_response({"error": "instance must be 'main' or 'tls'"}, status=422)
            async with instance.lock:
                out: dict[str, Any] = {"instance": instance.name}
                t0 = time.monotonic()
                try:
                    if action in ("restart", "stop"):
                        await instance.stop()
                        out["stopped_ms"] = round((time.monotonic() - t0) * 1000)
                    if action in ("restart", "start") and not instance.running():
                        t1 = time.monotonic()
                        await instance.start()
                        deadline = time.monotonic() + RESTART_TIMEOUT
                        await instance.wait_http(deadline)
                        await instance.wait_running(deadline, instance.token)
                        out["ready_ms"] = round((time.monotonic() - t1) * 1000)
                except Failure as error:
                    log(f"{action} {instance.name}: {error}")
                    return web.json_response({"error": str(error).splitlines()[0]}, status=500)
            log(f"{action} {instance.name}: {out}")
            return web.json_response(out)

        return handle


def tls_material(root: Path) -> tuple[ssl.SSLContext, tuple[str, str, str]]:
    """The PKI (Servers/nginx/make-pki.sh), the client chain file, the client context for the tls instance."""
    pki = root / "pki"
    subprocess.run([str(HERE.parent / "nginx" / "make-pki.sh"), str(pki)], check=True, capture_output=True)
    chain = pki / "client-chain.pem"
    chain.write_bytes((pki / "client.pem").read_bytes() + (pki / "intermediate.pem").read_bytes())
    chain.chmod(0o600)
    context = ssl.create_default_context(cafile=str(pki / "root.pem"))
    context.load_cert_chain(str(chain), str(pki / "client.key"))
    return context, (str(pki / "server-chain.pem"), str(pki / "server.key"), str(pki / "root.pem"))


async def serve(args: argparse.Namespace) -> int:
    root: Path = args.state
    for name in ("main", "tls", "pki", "secrets"):
        shutil.rmtree(root / name, ignore_errors=True)
    client_ssl, server_tls = tls_material(root)
    passwords = {OWNER: secrets.token_urlsafe(18), TOTP_USER: secrets.token_urlsafe(18)}
    (root / "secrets").mkdir(mode=0o700)
    write_secret(root / "secrets" / "owner-password", passwords[OWNER])
    write_secret(root / "secrets" / "totp-password", passwords[TOTP_USER])

    instances = {
        "main": Instance("main", root, args.port, args.hass, None),
        "tls": Instance("tls", root, free_port(), args.hass, client_ssl),
    }
    for instance, areas in ((instances["main"], args.areas), (instances["tls"], args.tls_areas)):
        instance.dir.mkdir(parents=True)
        command = [sys.executable, str(HERE / "generate_config.py"), str(instance.config)]
        command += ["--port", str(instance.port), "--areas", str(areas)]
        if instance.client_ssl:
            command += ["--tls", *server_tls]
        subprocess.run(command, check=True)

    loop = asyncio.get_running_loop()
    exit_reason: asyncio.Future[str] = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: exit_reason.done() or exit_reason.set_result(""))
    for instance in instances.values():
        instance.on_unexpected_exit = exit_reason
        await instance.start()

    helper = Helper(instances)
    runner = web.AppRunner(helper.app(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    helper_port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    deadline = time.monotonic() + START_TIMEOUT
    setup = asyncio.gather(*(set_up(i, passwords, deadline) for i in instances.values()))
    done, _ = await asyncio.wait({setup, exit_reason}, return_when=asyncio.FIRST_COMPLETED)
    code = 0
    if setup in done and setup.exception() is None:
        for instance, facts in zip(instances.values(), setup.result(), strict=True):
            log(f"{instance.name} at {instance.url}: {facts}")
        (root / "ports").write_text(f"{args.port} {instances['tls'].port} {helper_port}\n")
        print(f"READY {args.port} {instances['tls'].port} {helper_port}", flush=True)
        reason = await exit_reason
        if reason:
            log(reason)
            code = 1
    else:
        setup.cancel()
        if setup in done:
            log(f"setup failed: {setup.exception()}")
        elif exit_reason.result():
            log(exit_reason.result())
        code = 1
    for instance in instances.values():
        instance.expected_exit = True
    await asyncio.gather(*(i.stop() for i in instances.values()))
    await runner.cleanup()
    return code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--hass", default=str(Path(sys.executable).parent / "hass"))
    parser.add_argument("--areas", type=int, default=10)
    parser.add_argument("--tls-areas", type=int, default=1)
    args = parser.parse_args()
    args.state = args.state.resolve()
    sys.exit(asyncio.run(serve(args)))


if __name__ == "__main__":
    main()
