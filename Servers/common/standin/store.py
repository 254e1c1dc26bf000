"""The store every stand-in keeps its data in: one SQLite file per server process, made fresh at start.

    store = Store(path, SCHEMA, {"default": [fill_users, fill_rows]}, clock=Clock(iso), snapshots=True)
    store.one("SELECT * FROM users WHERE name = ?", name)      # a row (sqlite3.Row) or None
    store.all("SELECT ...", *args)                             # every row
    store.run("INSERT ...", *args)                             # the new row's id
    with store.transaction(): ...                              # many writes at once, rolled back on an error
    store.new_id("q")                                          # "q_1", "q_2", ...: one counter per prefix
    store.reset("edge")                                        # another fixture, the clock set back

A fixture is a list of fill functions `fill(store)`, run in order in one transaction after the schema is
made; a fill may keep public test data (fixture passwords, recovery codes) in `store.fixture_state`.
"""

import contextlib
import copy
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator

from .clock import Clock

# Tables every store has: the counters behind `new_id` and `seq`.
BASE_SCHEMA = """
CREATE TABLE counters (prefix TEXT PRIMARY KEY, next INTEGER NOT NULL);
"""

Fill = Callable[["Store"], None]


class Store:
    """One SQLite connection guarded by one lock (the servers are small: one process, a few threads).

    `snapshots=True` keeps the first load of each fixture in memory and copies it back on later resets,
    for fixtures that take long to build (scrypt hashes, years of rows). Without it every reset builds the
    fixture again, so times taken from the clock are fresh."""

    def __init__(
        self,
        path: str,
        schema: str,
        fixtures: dict[str, list[Fill]],
        *,
        clock: Clock,
        snapshots: bool = False,
        fixture: str = "default",
    ):
        for leftover in (path, path + "-wal", path + "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(leftover)
        self.lock = threading.RLock()
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = OFF")  # test data: speed over durability
        self.schema = BASE_SCHEMA + schema
        self.fixtures = fixtures
        self.clock = clock
        self.fixture_state: dict = {}
        self._snapshots: dict[str, tuple[sqlite3.Connection, dict]] | None = {} if snapshots else None
        self.reset(fixture)

    # ---- queries -------------------------------------------------------------------------------------

    def one(self, sql: str, *args) -> sqlite3.Row | None:
        with self.lock:
            return self.db.execute(sql, args).fetchone()

    def all(self, sql: str, *args) -> list[sqlite3.Row]:
        with self.lock:
            return self.db.execute(sql, args).fetchall()

    def run(self, sql: str, *args) -> int | None:
        """Runs one statement; returns the id of the row it inserted, if any."""
        with self.lock:
            return self.db.execute(sql, args).lastrowid

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Holds the lock for a block of writes, committed at its end and rolled back if it raises."""
        with self.lock:
            self.db.execute("BEGIN")
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def new_id(self, prefix: str) -> str:
        """`<prefix>_<n>`, with one counter per prefix that starts at 1 on every fixture load."""
        with self.lock:
            row = self.db.execute("SELECT next FROM counters WHERE prefix = ?", (prefix,)).fetchone()
            number = row["next"] if row else 1
            self.db.execute(
                "INSERT INTO counters (prefix, next) VALUES (?, ?) ON CONFLICT(prefix) DO UPDATE SET next = ?",
                (prefix, number + 1, number + 1),
            )
            return f"{prefix}_{number}"

    def seq(self) -> int:
        """A global, increasing number, for ordering rows written in the same millisecond."""
        return int(self.new_id("seq").split("_")[1])

    # ---- fixtures ------------------------------------------------------------------------------------

    def reset(self, fixture: str) -> None:
        """Replaces every table with the fixture's rows and sets the clock back; `KeyError` for an unknown
        fixture (the data is then left as it was)."""
        fills = self.fixtures[fixture]
        with self.lock:
            self.clock.reset()
            if self._snapshots is not None and fixture in self._snapshots:
                saved, state = self._snapshots[fixture]
                saved.backup(self.db)
                self.fixture_state = copy.deepcopy(state)
                return
            self._drop_tables()
            self.db.executescript(self.schema)
            self.fixture_state = {}
            with self.transaction():
                for fill in fills:
                    fill(self)
            if self._snapshots is not None:
                saved = sqlite3.connect(":memory:", check_same_thread=False)
                self.db.backup(saved)
                self._snapshots[fixture] = (saved, copy.deepcopy(self.fixture_state))

    def _drop_tables(self) -> None:
        names = [
            row["name"]
            for row in self.db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        for name in names:
            self.db.execute(f'DROP TABLE "{name}"')
        if self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").fetchone():
            self.db.execute("DELETE FROM sqlite_sequence")
