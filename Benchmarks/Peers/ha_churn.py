"""P13's driver: state changes on Home Assistant's 1,000 area entities at a steady rate, then their states restored.

    ha_churn.py <http-url> <token-file> [--rate 50] [--seconds 600] [--no-restore]

Reads which entities have an area (`config/entity_registry/list` over the WebSocket API) and their states and
attributes (`GET /api/states`), then sets one state a time with `POST /api/states/<entity_id>` (the entity's own
attributes kept), round robin over the entities in a shuffled but fixed order, `--rate` a second for `--seconds`:
"on"/"off" flips, a number moves by 0.5 steps, any other text gets a counter. Each POST is one `state_changed`, so
a follower of `subscribe_entities` sees exactly `--rate` changes a second spread over every entity. The POSTs are
paced by the clock (each at its own instant, at most 8 in flight), so a slow answer delays none after it.

At the end the states found at the start are written back (unless `--no-restore`). Prints one JSON line: `changes`,
`seconds`, `rate` (achieved), `late_p99_ms` (how late a change left against its instant), `entities`.
"""

import argparse
import asyncio
import json
import random
import statistics
import time
from typing import Any

import httpx
from ha_ws import authenticated


async def area_entities(url: str, token: str) -> list[str]:
    """The entity ids whose registry entry names an area."""
    async with await authenticated(url, token) as ws:
        await ws.send(json.dumps({"id": 1, "type": "config/entity_registry/list"}))
        while True:
            message = json.loads(await ws.recv())
            if message.get("id") == 1:
                return sorted(entry["entity_id"] for entry in message["result"] if entry.get("area_id"))


def next_state(original: str, step: int) -> str:
    if original in ("on", "off"):
        return original if step % 2 == 0 else ("off" if original == "on" else "on")
    try:
        return str(float(original) + (step % 10) * 0.5)
    except ValueError:
        return f"{original} {step}"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url")
    parser.add_argument("token_file")
    parser.add_argument("--rate", type=float, default=50)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--no-restore", action="store_true")
    args = parser.parse_args()
    with open(args.token_file) as handle:
        token = handle.read().strip()
    ids = await area_entities(args.url, token)
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=args.url.rstrip("/"), headers=headers, timeout=30) as http:
        reply = await http.get("/api/states")
        reply.raise_for_status()
        found: dict[str, dict[str, Any]] = {state["entity_id"]: state for state in reply.json()}
        ids = [entity_id for entity_id in ids if entity_id in found]
        if not ids:
            raise SystemExit("no entity with an area has a state")
        order = ids[:]
        random.Random(13).shuffle(order)
        gate = asyncio.Semaphore(8)
        late: list[float] = []
        failures: list[str] = []

        async def post(entity_id: str, state: str, attributes: dict[str, Any]) -> None:
            async with gate:
                answer = await http.post(f"/api/states/{entity_id}", json={"state": state, "attributes": attributes})
                if answer.status_code not in (200, 201):
                    failures.append(f"{entity_id}: {answer.status_code}")

        total = int(args.rate * args.seconds)
        tasks: list[asyncio.Task[None]] = []
        start = time.perf_counter()
        for k in range(total):
            instant = start + k / args.rate
            delay = instant - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            late.append(max(0.0, time.perf_counter() - instant))
            entity_id = order[k % len(order)]
            original = found[entity_id]
            state = next_state(original["state"], k // len(order) + 1)
            tasks.append(asyncio.create_task(post(entity_id, state, original["attributes"])))
            if len(tasks) > 64:
                await asyncio.gather(*tasks[:32])
                del tasks[:32]
        await asyncio.gather(*tasks)
        seconds = time.perf_counter() - start
        if not args.no_restore:
            await asyncio.gather(
                *(post(entity_id, found[entity_id]["state"], found[entity_id]["attributes"]) for entity_id in ids)
            )
    if failures:
        raise SystemExit(f"{len(failures)} state writes failed, first: {failures[0]}")
    late_p99 = statistics.quantiles(late, n=100)[98] if len(late) >= 100 else max(late, default=0.0)
    print(
        json.dumps(
            {
                "changes": total,
                "seconds": seconds,
                "rate": total / seconds,
                "late_p99_ms": late_p99 * 1000,
                "entities": len(ids),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    asyncio.run(main())
