"""The project's event stream: publishing an event, and waking the open streams.

Every write to a project appends one row to `events` through `publish()` (the row's id is the
project's new `revision`). This module lets any route module publish an event and lets the stream
(`routes_events`) wait for the next one without polling:

    from events import publish
    revision = publish(S.store, key, "case", {"id": "c_12", "number": "C-12"})

`publish(store, project, kind, data) -> int` appends the event and returns its id, which is also the
project's revision; the stream adds `"revision": <id>` to `data` when it sends the event. Kinds the
stream sends: change, question, decision, run, case (others, such as the fixture's, are kept but not
sent). `revision(store, project)` is the project's revision now.
"""

import asyncio
import json
import threading

STREAMED_KINDS = ("change", "question", "decision", "run", "case")

_lock = threading.Lock()
# project → set of (loop, asyncio.Event) of the streams waiting for its next event
_waiters: dict[str, set] = {}
# Hooks run after an event is appended (in the writer's thread, under the store's lock): the changes
# part adds a `change` event when a decision moves a change's gate.
AFTER_PUBLISH: list = []


def publish(store, project: str, kind: str, data: dict) -> int:
    """Appends an event of `kind` with `data` to `project`'s stream, raises the project's revision to its
    id and returns it. The hooks run and the open streams of the project send it at once."""
    with store.lock:
        event_id = store.run(
            "INSERT INTO events (project, type, data, at) VALUES (?,?,?,?)",
            project,
            kind,
            json.dumps(data),
            store.clock.stamp(),
        )
        store.run("UPDATE projects SET revision = ? WHERE key = ?", event_id, project)
        _appended(store, project, kind, data, event_id)
        return event_id


def revision(store, project: str) -> int:
    """The project's revision: the id of its latest event."""
    return store.one("SELECT revision FROM projects WHERE key = ?", project)["revision"]


def subscribe(project: str) -> asyncio.Event:
    """An event set whenever `project` gets a new event; pass it to `unsubscribe` when done."""
    signal = asyncio.Event()
    with _lock:
        _waiters.setdefault(project, set()).add((asyncio.get_running_loop(), signal))
    return signal


def unsubscribe(project: str, signal: asyncio.Event) -> None:
    with _lock:
        for entry in list(_waiters.get(project, ())):
            if entry[1] is signal:
                _waiters[project].discard(entry)


def _appended(store, project: str, kind: str, data: dict, event_id: int) -> None:
    for hook in list(AFTER_PUBLISH):
        hook(store, project, kind, data, event_id)
    with _lock:
        waiting = list(_waiters.get(project, ()))
    for loop, signal in waiting:
        try:
            loop.call_soon_threadsafe(signal.set)
        except RuntimeError:  # the loop closed: the stream is gone
            pass


def wake_all() -> None:
    """Wakes every open stream (a fixture reset ends them)."""
    with _lock:
        waiting = [entry for entries in _waiters.values() for entry in entries]
    for loop, signal in waiting:
        try:
            loop.call_soon_threadsafe(signal.set)
        except RuntimeError:
            pass
