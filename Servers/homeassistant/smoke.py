#!/usr/bin/env python3
"""A by-hand check of the running test Home Assistant (scripts/servers start homeassistant; source .servers/env):

    .venvs/homeassistant/bin/python Servers/homeassistant/smoke.py [--no-restart]

It checks, printing one line per check with its numbers (never a secret):
- GET /api/states with the long-lived token: 1,000 generated entities (and what else is there);
- the WebSocket: auth with the token, the area registry (10 areas) and the entity registry (1,000 with an area);
- the login flow: the owner with a password; the TOTP user with password then code; their tokens on the WebSocket;
- the client_id page: a flow with HOMEASSISTANT_CLIENT_ID_URL and companionkit://auth-callback;
- the https instance: refused without a client certificate and with an untrusted one, 200 with its own, and the
  owner's and the TOTP user's login flows;
- remote push: a mobile_app registration whose push_url is the catcher, notify, the catcher's record;
- restart through the control API (unless --no-restart): same port, the token still valid, areas kept;
- no password, token or TOTP secret in the server's logs.
Exit 0 when every check passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import ssl
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp

from ha_server import TOTP_USER, Failure, Socket, login

ENV = os.environ


def secret(name: str) -> str:
    return Path(ENV[name]).read_text().strip()


def ok(what: str) -> None:
    print(f"ok  {what}", flush=True)


async def states(session: aiohttp.ClientSession, base: str, token: str) -> list[dict[str, Any]]:
    async with session.get(base + "/api/states", headers={"Authorization": f"Bearer {token}"}) as r:
        if r.status != 200:
            raise Failure(f"GET /api/states answered {r.status}")
        return await r.json()


async def registries(session: aiohttp.ClientSession, base: str, token: str) -> tuple[int, int]:
    ws = await Socket.open(session, base, token)
    try:
        areas = await ws.call("config/area_registry/list")
        entities = await ws.call("config/entity_registry/list")
    finally:
        await ws.close()
    return len(areas), sum(1 for e in entities if e.get("area_id"))


async def check_main(session: aiohttp.ClientSession, base: str, token: str) -> None:
    t0 = time.monotonic()
    listed = await states(session, base, token)
    ms = (time.monotonic() - t0) * 1000
    layout = json.loads((Path(ENV["HOMEASSISTANT_TOKEN_FILE"]).parents[1] / "main/config/layout.json").read_text())
    ids = {s["entity_id"] for s in listed}
    generated = [s for s in listed if s["entity_id"] in layout["entities"]]
    others = sorted(ids - set(layout["entities"]))
    if len(generated) != 1000:
        raise Failure(f"GET /api/states: {len(generated)} of the 1,000 generated entities")
    ok(f"GET /api/states: {len(listed)} states (the 1,000 generated + {others}) in {ms:.0f} ms")
    domains: dict[str, int] = {}
    for s in generated:
        domains[s["entity_id"].split(".")[0]] = domains.get(s["entity_id"].split(".")[0], 0) + 1
    ok(f"domains: {dict(sorted(domains.items()))}")
    areas, with_area = await registries(session, base, token)
    if areas < 10 or with_area != 1000:
        raise Failure(f"registries: {areas} areas, {with_area} entities with an area")
    ok(f"WebSocket auth with the long-lived token; {areas} areas; {with_area} entities with an area")


async def check_logins(session: aiohttp.ClientSession, base: str) -> None:
    owner = await login(session, base, ENV["HOMEASSISTANT_USER"], secret("HOMEASSISTANT_PASSWORD_FILE"))
    await (await Socket.open(session, base, owner)).close()
    ok("owner: login flow (password), code exchange, WebSocket auth_ok")
    client_id = base + "/"
    body = {"client_id": client_id, "handler": ["homeassistant", None], "redirect_uri": client_id + "?auth_callback=1"}
    async with session.post(base + "/auth/login_flow", json=body) as r:
        flow = await r.json()
    password = secret("HOMEASSISTANT_TOTP_PASSWORD_FILE")
    answer = {"client_id": client_id, "username": ENV["HOMEASSISTANT_TOTP_USER"], "password": password}
    async with session.post(f"{base}/auth/login_flow/{flow['flow_id']}", json=answer) as r:
        step = await r.json()
    if step.get("step_id") != "mfa":
        raise Failure(f"the TOTP user's password step answered {step.get('type')} {step.get('step_id')}")
    async with session.post(
        f"{base}/auth/login_flow/{flow['flow_id']}", json={"client_id": client_id, "code": "000000"}
    ):
        pass
    token = await login(session, base, TOTP_USER, password, totp=secret("HOMEASSISTANT_TOTP_SECRET_FILE"))
    ws = await Socket.open(session, base, token)
    user = await ws.call("auth/current_user")
    await ws.close()
    mfa = {m["id"]: m["enabled"] for m in user["mfa_modules"]}
    if not mfa.get("totp") or user["is_admin"]:
        raise Failure(f"the TOTP user: mfa {mfa}, admin {user['is_admin']}")
    ok(f"TOTP user: password -> step 'mfa' (one field 'code'), code -> token; current_user mfa {mfa}, not admin")
    page = ENV["HOMEASSISTANT_CLIENT_ID_URL"]
    body = {"client_id": page, "handler": ["homeassistant", None], "redirect_uri": "companionkit://auth-callback"}
    async with session.post(base + "/auth/login_flow", json=body) as r:
        flow = await r.json()
    answer = {"client_id": page, "username": "ci", "password": secret("HOMEASSISTANT_PASSWORD_FILE")}
    async with session.post(f"{base}/auth/login_flow/{flow['flow_id']}", json=answer) as r:
        step = await r.json()
    if step.get("type") != "create_entry":
        raise Failure(f"the client_id page flow ended with {step}")
    ok("client_id page: the flow with companionkit://auth-callback ends in create_entry")


def tls_context(cert: Path | str | None = None, key: Path | str | None = None) -> ssl.SSLContext:
    """Trusts the private root; presents the given client certificate, if any."""
    context = ssl.create_default_context(cafile=ENV["HOMEASSISTANT_TLS_ROOT_PEM"])
    if cert and key:
        context.load_cert_chain(cert, key)
    return context


async def check_tls() -> None:
    base = ENV["HOMEASSISTANT_TLS_URL"]
    pki = Path(ENV["HOMEASSISTANT_TLS_ROOT_PEM"]).parent
    for what, context in (
        ("no client certificate", tls_context()),
        ("a client certificate from an untrusted CA", tls_context(pki / "stranger.pem", pki / "stranger.key")),
    ):
        try:
            async with aiohttp.ClientSession() as session, session.get(base + "/manifest.json", ssl=context) as r:
                raise Failure(f"https with {what} answered {r.status}")
        except (aiohttp.ClientError, ssl.SSLError, ConnectionError) as error:
            ok(f"https with {what}: refused ({type(error).__name__})")
    context = tls_context(ENV["HOMEASSISTANT_TLS_CLIENT_CERT"], ENV["HOMEASSISTANT_TLS_CLIENT_KEY"])
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=context)) as session:
        listed = await states(session, base, secret("HOMEASSISTANT_TLS_TOKEN_FILE"))
        token = await login(session, base, "ci", secret("HOMEASSISTANT_PASSWORD_FILE"))
        ws = await Socket.open(session, base, token)
        await ws.close()
        totp = await login(
            session,
            base,
            TOTP_USER,
            secret("HOMEASSISTANT_TOTP_PASSWORD_FILE"),
            totp=secret("HOMEASSISTANT_TLS_TOTP_SECRET_FILE"),
        )
        await (await Socket.open(session, base, totp)).close()
    ok(f"https with the client certificate: {len(listed)} states; owner and TOTP logins; wss auth_ok")


async def check_push(session: aiohttp.ClientSession, base: str, token: str) -> None:
    control = ENV["HOMEASSISTANT_CONTROL_URL"]
    async with session.get(control + "/pushes") as r:
        version = (await r.json())["version"]
    registration = {
        "device_id": f"smoke-{int(time.time())}",
        "app_id": "io.companionkit.smoke",
        "app_name": "CompanionKit smoke",
        "app_version": "0.1.0",
        "device_name": "smoke phone",
        "manufacturer": "CompanionKit",
        "model": "Linux",
        "os_name": "Linux",
        "os_version": "6",
        "supports_encryption": False,
        "app_data": {"push_token": "smoke-push-token", "push_url": ENV["HOMEASSISTANT_PUSH_URL"]},
    }
    headers = {"Authorization": f"Bearer {token}"}
    async with session.post(base + "/api/mobile_app/registrations", json=registration, headers=headers) as r:
        if r.status != 201:
            raise Failure(f"registration answered {r.status}")
    ws = await Socket.open(session, base, token)
    services = await ws.call("get_services")
    await ws.close()
    notify = sorted(s for s in services.get("notify", {}) if s.startswith("mobile_app_smoke_phone"))
    if not notify:
        raise Failure("no notify.mobile_app_smoke_phone* service after the registration")
    data = {"message": "hello from the smoke check", "title": "smoke", "data": {"tag": "smoke"}}
    t0 = time.monotonic()
    async with session.post(f"{base}/api/services/notify/{notify[-1]}", json=data, headers=headers) as r:
        if r.status != 200:
            raise Failure(f"notify answered {r.status}")
    async with session.get(control + "/pushes", params={"after": str(version), "wait_ms": "10000"}) as r:
        items = (await r.json())["items"]
    caught = [i for i in items if isinstance(i["body"], dict) and i["body"].get("push_token") == "smoke-push-token"]
    if not caught:
        raise Failure("the push catcher caught nothing")
    body = caught[-1]["body"]
    ms = (time.monotonic() - t0) * 1000
    ok(f"remote push: notify.{notify[-1]} -> catcher in {ms:.0f} ms, keys {sorted(body)}, message {body['message']!r}")


async def check_restart(session: aiohttp.ClientSession, base: str, token: str) -> None:
    t0 = time.monotonic()
    async with session.post(ENV["HOMEASSISTANT_CONTROL_URL"] + "/restart", json={"instance": "main"}) as r:
        answer = await r.json()
        if r.status != 200:
            raise Failure(f"restart answered {r.status}: {answer}")
    _, with_area = await registries(session, base, token)
    count = len(await states(session, base, token))
    took = time.monotonic() - t0
    if with_area != 1000:
        raise Failure(f"after the restart: {with_area} entities with an area")
    ok(f"restart: {answer} ({took:.1f} s in all); same URL, token valid, {count} states, {with_area} with an area")


def check_logs() -> None:
    state = Path(ENV["HOMEASSISTANT_TOKEN_FILE"]).parent.parent
    values = [
        secret(n)
        for n in (
            "HOMEASSISTANT_PASSWORD_FILE",
            "HOMEASSISTANT_TOTP_PASSWORD_FILE",
            "HOMEASSISTANT_TOTP_SECRET_FILE",
            "HOMEASSISTANT_TOKEN_FILE",
            "HOMEASSISTANT_TLS_TOKEN_FILE",
            "HOMEASSISTANT_TLS_TOTP_SECRET_FILE",
        )
    ]
    logs = [*state.glob("*.log"), *state.glob("server.*"), *state.glob("*/*.log")]
    for path in logs:
        text = path.read_text(errors="replace")
        if any(v in text for v in values):
            raise Failure(f"a secret is in {path}")
    modes = {
        p.name: oct(p.stat().st_mode & 0o777)
        for p in map(Path, (ENV[k] for k in ENV if k.startswith("HOMEASSISTANT_") and k.endswith("_FILE")))
    }
    if any(m != "0o600" for m in modes.values()):
        raise Failure(f"secret files not 0600: {modes}")
    ok(f"no secret in {len(logs)} log files; the secret files are 0600")


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-restart", action="store_true")
    args = parser.parse_args()
    base, token = ENV["HOMEASSISTANT_URL"], secret("HOMEASSISTANT_TOKEN_FILE")
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=240)) as session:
            await check_main(session, base, token)
            await check_logins(session, base)
            await check_tls()
            await check_push(session, base, token)
            if not args.no_restart:
                await check_restart(session, base, token)
        check_logs()
    except (Failure, KeyError, aiohttp.ClientError, OSError) as error:
        print(f"FAILED {type(error).__name__}: {error}", flush=True)
        return 1
    print("smoke: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
