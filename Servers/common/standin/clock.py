"""The server's clock: the wall clock plus an offset the tests move forward."""

import time
from collections.abc import Callable


class Clock:
    """Seconds since the epoch, moved by `advance` (a control endpoint's `POST /_control/clock`) and set back
    by `reset` (a fixture reset). `stamp` writes a time in the server's own wire format."""

    def __init__(self, stamp: Callable[[float], str]):
        self._format = stamp
        self.offset = 0.0

    def now(self) -> float:
        return time.time() + self.offset

    def stamp(self, offset: float = 0.0) -> str:
        """Now (plus `offset` seconds) in the server's format."""
        return self._format(self.now() + offset)

    def advance(self, seconds: float) -> None:
        self.offset += seconds

    def reset(self) -> None:
        self.offset = 0.0
