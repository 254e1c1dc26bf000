"""The project's live stream: `GET P/events` (text/event-stream), M-CHG-4, M-CHG-11, O-12.

- Each event is sent as `event: <kind>`, `data: <json>`, `id: <n>` (the id last); the id is the project's revision
  after the event, and `data` carries it as `revision`. Kinds: change, question, decision, run, case.
- A comment `: ping` goes out every 15 s when nothing else does (MAINWORTHY_PING_SECONDS, or
  `POST /_control/stream {"ping_ms"}` for tests).
- `Last-Event-ID` resumes after that event. A client more than 1,000 kept events behind (or naming an
  id the server never gave, as after a reset of the fixture) gets `event: reset` with the current
  revision instead of the backlog, and reads its lists again.
- Without `Last-Event-ID`, the stream starts at the project's current revision.
- `POST /_control/cut-stream {"after_events", "times"}`: the next streams opened send that many events,
  then half of the next one, and close the connection (a stream cut mid-event).
"""

import asyncio
import json
import os

from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

import events
from common import S, guarded, project_access

KEPT_EVENTS = 1000


def default_ping() -> float:
    try:
        return float(os.environ.get("MAINWORTHY_PING_SECONDS", "15"))
    except ValueError:
        return 15.0


class StreamControls:
    def __init__(self):
        self.ping_seconds: float = default_ping()
        self.cuts: list[dict] = []
        self.generation: int = 0


C = StreamControls()


def reset_controls() -> None:
    """Back to the defaults, and every open stream ends (a new fixture renumbers the events)."""
    C.ping_seconds = default_ping()
    C.cuts = []
    C.generation += 1


def frame(row) -> str:
    data = json.loads(row["data"])
    data["revision"] = row["id"]
    # The id line comes last: a frame cut before its end names no id, so no client can take the id of an
    # event it never got whole.
    return f"event: {row['type']}\ndata: {json.dumps(data, ensure_ascii=False)}\nid: {row['id']}\n\n"


def behind(key: str, last: int) -> bool:
    """Whether a client that saw event `last` missed more than the kept events, or names one never given."""
    revision = events.revision(S.store, key)
    if last > revision:
        return True
    missed = S.store.one("SELECT COUNT(*) AS n FROM events WHERE project = ? AND id > ?", key, last)["n"]
    return missed > KEPT_EVENTS


async def stream(request: Request):
    _, key = project_access(request)
    raw = request.headers.get("last-event-id", "").strip()
    last = int(raw) if raw.isdigit() else None
    cut = None
    for rule in C.cuts:
        if rule["times"] > 0:
            rule["times"] -= 1
            cut = rule["after_events"]
            break
    generation = C.generation
    signal = events.subscribe(key)

    async def body():
        nonlocal last
        sent = 0
        try:
            yield ": connected\n\n"
            if last is None:
                last = events.revision(S.store, key)
            elif behind(key, last):
                last = events.revision(S.store, key)
                yield f"id: {last}\nevent: reset\ndata: {json.dumps({'revision': last})}\n\n"
            while C.generation == generation:
                signal.clear()
                rows = S.store.all("SELECT * FROM events WHERE project = ? AND id > ? ORDER BY id LIMIT 200", key, last)
                for row in rows:
                    last = row["id"]
                    if row["type"] not in events.STREAMED_KINDS:
                        continue
                    text = frame(row)
                    if cut is not None and sent >= cut:
                        middle = text.index("data: ") + (text.index("\nid: ") - text.index("data: ")) // 2
                        yield text[:middle]
                        raise ConnectionAbortedError("stream cut mid-event on purpose (/_control/cut-stream)")
                    sent += 1
                    yield text
                if rows:
                    continue
                try:
                    await asyncio.wait_for(signal.wait(), timeout=C.ping_seconds)
                except TimeoutError:
                    yield ": ping\n\n"
        finally:
            events.unsubscribe(key, signal)

    return StreamingResponse(
        body(), media_type="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    )


routes = [
    Route("/api/projects/{key}/events", guarded(stream)),
]
