"""The request log a stand-in keeps for its tests (`GET /_control/requests`), one shape for every server.

Each entry is a dict:

    {"method": "POST", "path": "/api/x", "query": "a=1", "at": "<the server's time format>",
     "idempotency_key": "k-1" | None, "cookie": True,   # whether a cookie came along, never its value
     "status": 201 | None,        # the status the server answered (None while it runs)
     "replayed": False,           # the reply was an idempotent replay (`Idempotent-Replayed: true`)
     "dropped": False,            # the reply was lost on purpose (`POST /_control/drop-reply`)
     "disconnected": False,       # the client went away before the body was read whole: nothing ran
     ...}                         # fields of the server's own (`extra`), never a secret's value

The log has a version that rises with every change (an entry added or answered, the log cleared), so a
test waits for the next change (`?after=<version>&wait_ms=M`) instead of polling.
"""

import asyncio
import threading

LIMIT = 10_000


class RequestLog:
    def __init__(self, limit: int = LIMIT):
        self._limit = limit
        self._entries: list[dict] = []
        self._changed = threading.Condition()
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()
        self.version = 0

    def record(self, method: str, path: str, query: str, headers: dict[str, str], at: str, /, **extra) -> dict:
        """Adds the entry of a request (`headers` with lower-case names) and returns it, to `update` later."""
        entry = {
            "method": method,
            "path": path,
            "query": query,
            "at": at,
            "idempotency_key": headers.get("idempotency-key"),
            "cookie": "cookie" in headers,
            "status": None,
            "replayed": False,
            "dropped": False,
            "disconnected": False,
            **extra,
        }
        with self._changed:
            self._entries.append(entry)
            del self._entries[: -self._limit]
            self._touch()
        return entry

    def update(self, entry: dict, **fields) -> None:
        with self._changed:
            entry.update(fields)
            self._touch()

    def clear(self) -> None:
        with self._changed:
            self._entries.clear()
            self._touch()

    def reply(self, prefix: str = "") -> dict:
        """`{"items": [...], "version": n}`: the entries whose path starts with `prefix`, oldest first."""
        with self._changed:
            items = [dict(entry) for entry in self._entries if entry["path"].startswith(prefix)]
            return {"items": items, "version": self.version}

    def wait(self, after: int, timeout: float) -> None:
        """Returns once the version is past `after`, or after `timeout` seconds (a thread's wait)."""
        with self._changed:
            self._changed.wait_for(lambda: self.version > after, timeout)

    async def wait_async(self, after: int, timeout: float) -> None:
        """`wait` for an event loop."""
        signal = asyncio.Event()
        waiter = (asyncio.get_running_loop(), signal)
        with self._changed:
            if self.version > after:
                return
            self._waiters.add(waiter)
        try:
            await asyncio.wait_for(signal.wait(), timeout)
        except TimeoutError:
            pass
        finally:
            with self._changed:
                self._waiters.discard(waiter)

    def _touch(self) -> None:
        self.version += 1
        self._changed.notify_all()
        for loop, signal in self._waiters:
            try:
                loop.call_soon_threadsafe(signal.set)
            except RuntimeError:  # the loop closed: its waiter is gone
                pass
