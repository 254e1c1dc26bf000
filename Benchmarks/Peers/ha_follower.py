"""P13's Python peer: a follower of Home Assistant's `subscribe_entities` keeping every entity's last state.

    ha_follower.py <http-url> <token-file> --seconds S

websockets 17 (no compression, no limit): authenticates, subscribes to every entity, and applies each event to a
dict of compressed states (`a` adds, `c` merges `+` and drops `-` attributes, `r` removes), as a live store would.
A caller samples this process's resident memory while it runs. After `--seconds` it prints one JSON line:
`events`, `changes` (entity changes applied), `entities` (in the store at the end).
"""

import argparse
import asyncio
import json
import time
from typing import Any

from ha_ws import authenticated


def apply(store: dict[str, dict[str, Any]], event: dict[str, Any]) -> int:
    """Applies one `subscribe_entities` event to `store`; returns how many entities it touched."""
    touched = 0
    for entity_id, state in event.get("a", {}).items():
        store[entity_id] = state
        touched += 1
    for entity_id, diff in event.get("c", {}).items():
        current = store.get(entity_id)
        if current is None:
            continue
        added = diff.get("+", {})
        for key, value in added.items():
            if key == "a":
                current.setdefault("a", {}).update(value)
            else:
                current[key] = value
        for key in diff.get("-", {}).get("a", []):
            current.get("a", {}).pop(key, None)
        touched += 1
    for entity_id in event.get("r", []):
        store.pop(entity_id, None)
        touched += 1
    return touched


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url")
    parser.add_argument("token_file")
    parser.add_argument("--seconds", type=float, required=True)
    args = parser.parse_args()
    with open(args.token_file) as handle:
        token = handle.read().strip()
    store: dict[str, dict[str, Any]] = {}
    events = changes = 0
    async with await authenticated(args.url, token) as ws:
        await ws.send(json.dumps({"id": 1, "type": "subscribe_entities"}))
        print(json.dumps({"subscribed": True}), flush=True)
        end = time.perf_counter() + args.seconds
        while (left := end - time.perf_counter()) > 0:
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=left))
            except TimeoutError:
                break
            if message.get("id") == 1 and message.get("type") == "event":
                events += 1
                changes += apply(store, message["event"])
    print(json.dumps({"events": events, "changes": changes, "entities": len(store)}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
