"""P12's Python peers: Home Assistant's first screen, every entity grouped by area, over its WebSocket API.

    ha_first_screen.py <http-url> <token-file> [--client hass-client|websockets] [--repeat R]

The screen is what a companion app's first screen needs: connect, authenticate, then `subscribe_entities` and the
three registry lists (`config/area_registry/list`, `config/device_registry/list`, `config/entity_registry/list`),
sent together; it is complete when the four results and the subscription's first event (every state) are in, and
each entity is placed in its area (its registry entry's `area_id`, else its device's, else none).

- `--client hass-client`: the PyPI `hass-client` library (aiohttp underneath): `connect`, `start_listening`, its
  `subscribe` with `subscribe_entities` (its own `subscribe_entities` insists on a list of ids) and its
  `get_area_registry`, `get_device_registry`, `get_entity_registry`, gathered.
- `--client websockets`: the same messages written by hand as JSON over websockets 17 (no compression, no limit),
  which also times the server's own reply: from the last request sent to the last message received.

Prints a JSON line as soon as the first screen is complete (`screen_s`: from the script's first line to then;
`areas`, `placed`: entities in an area, `states`), flushed, so a caller timing from the process start can stop its
clock on that line. With `--repeat R`, R more screens follow on the same open connection (each a new
subscription and the three lists again, the subscription ended after), and a second line gives their medians:
`open_s` and, for `websockets`, `reply_s` (the server's part of each).
"""

import time

STARTED = time.perf_counter()

import argparse  # noqa: E402  (imports after the clock starts: the process start is part of what is timed)
import asyncio  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
from collections.abc import Awaitable, Callable  # noqa: E402
from typing import Any  # noqa: E402


def group(states: dict[str, Any], areas: list, devices: list, entities: list) -> dict[str, list[str]]:
    """Entity ids per area name: the registry entry's area, else its device's; entities in no area are left out."""
    names = {area["area_id"]: area["name"] for area in areas}
    device_area = {device["id"]: device.get("area_id") for device in devices}
    grouped: dict[str, list[str]] = {}
    for entry in entities:
        entity_id = entry["entity_id"]
        if entity_id not in states:
            continue
        area = entry.get("area_id") or device_area.get(entry.get("device_id"))
        if area in names:
            grouped.setdefault(names[area], []).append(entity_id)
    return grouped


def summary(grouped: dict[str, list[str]], states: dict[str, Any]) -> dict[str, int]:
    return {"areas": len(grouped), "placed": sum(len(ids) for ids in grouped.values()), "states": len(states)}


class RawScreen:
    """The messages by hand over websockets: one connection, ids counting up."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.token = token
        self.next_id = 1

    async def open(self) -> None:
        from ha_ws import authenticated

        self.ws = await authenticated(self.url, self.token)

    async def screen(self) -> tuple[dict[str, list[str]], dict[str, Any], float]:
        """One first screen on the open connection; returns it, the states and the server's reply time."""
        ids = {}
        for kind in ("subscribe_entities", "areas", "devices", "entities"):
            ids[kind] = self.next_id
            self.next_id += 1
        commands = {
            "subscribe_entities": "subscribe_entities",
            "areas": "config/area_registry/list",
            "devices": "config/device_registry/list",
            "entities": "config/entity_registry/list",
        }
        for kind, command in commands.items():
            await self.ws.send(json.dumps({"id": ids[kind], "type": command}))
        sent = time.perf_counter()
        by_id = {number: kind for kind, number in ids.items()}
        results: dict[str, Any] = {}
        states: dict[str, Any] | None = None
        while states is None or len(results) < 4:
            message = json.loads(await self.ws.recv())
            kind = by_id.get(message.get("id"))
            if kind is None:
                continue
            if message["type"] == "result":
                if not message.get("success"):
                    raise SystemExit(f"{commands[kind]} failed: {message.get('error')}")
                results[kind] = message["result"]
            elif message["type"] == "event" and kind == "subscribe_entities" and states is None:
                states = message["event"].get("a", {})
        reply = time.perf_counter() - sent
        grouped = group(states, results["areas"], results["devices"], results["entities"])
        # End the subscription, so the next screen's is the only one feeding this connection.
        unsubscribe = self.next_id
        self.next_id += 1
        await self.ws.send(
            json.dumps({"id": unsubscribe, "type": "unsubscribe_events", "subscription": ids["subscribe_entities"]})
        )
        while True:
            message = json.loads(await self.ws.recv())
            if message.get("id") == unsubscribe:
                break
        return grouped, states, reply

    async def close(self) -> None:
        await self.ws.close()


class HassClientScreen:
    """The same through the `hass-client` library."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url.rstrip("/").replace("http", "ws", 1) + "/api/websocket"
        self.token = token

    async def open(self) -> None:
        from hass_client import HomeAssistantClient

        self.client = HomeAssistantClient(self.url, self.token)
        await self.client.connect()
        self.listener = asyncio.create_task(self.client.start_listening())

    async def screen(self) -> tuple[dict[str, list[str]], dict[str, Any], float]:
        loop = asyncio.get_running_loop()
        first: asyncio.Future[dict[str, Any]] = loop.create_future()

        def on_message(message: dict[str, Any]) -> None:
            if not first.done():
                first.set_result(message["event"].get("a", {}))

        remove, areas, devices, entities = await asyncio.gather(
            self.client.subscribe(on_message, "subscribe_entities"),
            self.client.get_area_registry(),
            self.client.get_device_registry(),
            self.client.get_entity_registry(),
        )
        states = await first
        grouped = group(states, areas, devices, entities)
        remove()
        return grouped, states, float("nan")

    async def close(self) -> None:
        await self.client.disconnect()
        self.listener.cancel()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url", help="Home Assistant's http://127.0.0.1:<port>")
    parser.add_argument("token_file", help="a file holding a long-lived access token")
    parser.add_argument("--client", choices=["hass-client", "websockets"], default="hass-client")
    parser.add_argument("--repeat", type=int, default=0)
    args = parser.parse_args()
    with open(args.token_file) as handle:
        token = handle.read().strip()
    make: Callable[[str, str], RawScreen | HassClientScreen] = (
        RawScreen if args.client == "websockets" else HassClientScreen
    )
    peer = make(args.url, token)
    await peer.open()
    grouped, states, _ = await peer.screen()
    print(json.dumps({"screen_s": time.perf_counter() - STARTED, **summary(grouped, states)}), flush=True)
    if args.repeat > 0:
        opens: list[float] = []
        replies: list[float] = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            grouped, states, reply = await peer.screen()
            opens.append(time.perf_counter() - start)
            replies.append(reply)
        line: dict[str, Any] = {"open_s": statistics.median(opens), "repeat": args.repeat, **summary(grouped, states)}
        if args.client == "websockets":
            line["reply_s"] = statistics.median(replies)
        print(json.dumps(line), flush=True)
    closing: Awaitable[None] = peer.close()
    await closing
    sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main())
