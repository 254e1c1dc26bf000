"""PrompTugal team-data stand-in: the public JSON files PrompTugal reads, served as a static site.

A stand-in written from PrompTugal's description of its data sources (see README.md), not the real sites.
Run: python promptugal_server.py --port PORT   (binds 127.0.0.1 only; prints READY <port> when listening)

Every file is generated at start from a fixed seed, so every run serves the same bytes. Both hosts of the
real product (the team site and the news site) are served from one origin; the app's bases point here.
"""

import argparse
import json
import os
import random
import sys
from datetime import UTC, datetime, timedelta
from http.server import ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

from standin.clock import Clock
from standin.faults import Faults
from standin.http_server import StandInHandler
from standin.request_log import RequestLog

SEED = 20261110
PERSON_ID = "p-0042"
PLACE_COUNT = 83
# The team's people, in me.json under each fixture's own names.
PEOPLE = [
    (PERSON_ID, "Inês Duarte"),
    ("p-0007", "Rui Costa"),
    ("p-0013", "Ana Lima"),
    ("p-0021", "Marta Sousa"),
    ("p-0034", "João Pires"),
    ("p-0055", "Sofia Reis"),
]
EVENT_COUNT = 240
STORY_COUNT = 180
DOC_COUNT = 1200

WORDS = (
    "agent model vault schedule stage talk founder ocean data summit lisbon product future robot policy "
    "climate health money design open source security privacy browser mobile city music sport media "
    "creator capital growth market energy space chip cloud edge trust safety language vision"
).split()


def sentence(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    return text[:1].upper() + text[1:] + "."


def slugify(text: str) -> str:
    return "-".join(text.lower().rstrip(".").split())[:60]


def event_slugs(rng: random.Random, count: int, words: tuple[int, int]):
    """`count` events of the agenda: (index, title, unique slug, start) each, starting on 2026-11-10 09:00."""
    seen = set()
    first_day = datetime(2026, 11, 10, 9, 0)
    for index in range(count):
        title = sentence(rng, rng.randint(*words)).rstrip(".")
        slug = slugify(title)
        while slug in seen:
            slug = f"{slug}-{index}"
        seen.add(slug)
        yield index, title, slug, first_day + timedelta(days=index % 4, minutes=30 * rng.randint(0, 18))


def build_files() -> dict[str, tuple[str, bytes]]:
    """Every path the stand-in serves, with its media type and body."""
    rng = random.Random(SEED)
    files: dict[str, tuple[str, bytes]] = {}

    def put_json(path: str, value) -> None:
        files[path] = ("application/json", json.dumps(value, ensure_ascii=False, indent=1).encode())

    places = []
    kinds = ["stage", "room", "booth", "lounge", "food", "entrance"]
    for index in range(PLACE_COUNT):
        kind = kinds[index % len(kinds)]
        places.append(
            {
                "id": f"place-{index + 1:03d}",
                "name": f"{kind.title()} {index + 1}",
                "kind": kind,
                "area": rng.choice(["Pavilion 1", "Pavilion 2", "Pavilion 3", "Pavilion 4", "Altice Arena", "Outdoor"]),
                "capacity": rng.choice([40, 120, 300, 800, 2500, 12000]),
            }
        )
    put_json("/api/v1/places.json", {"generatedAt": "2026-11-07T22:00:00.000Z", "places": places})

    events = []
    for _, title, slug, start in event_slugs(rng, EVENT_COUNT, (3, 7)):
        events.append(
            {
                "slug": slug,
                "title": title,
                # Lisbon wall time, no offset, as the website publishes it.
                "start": start.strftime("%Y-%m-%dT%H:%M"),
                "end": (start + timedelta(minutes=rng.choice([20, 30, 45, 60]))).strftime("%Y-%m-%dT%H:%M"),
                "place": places[rng.randrange(PLACE_COUNT)]["id"],
                "url": f"/events/{slug}/index.html",
                "speakers": [sentence(rng, 2).rstrip(".").title() for _ in range(rng.randint(1, 4))],
                "summary": sentence(rng, rng.randint(12, 30)),
            }
        )
    # A fixed event the docs and the demo name.
    events.append(
        {
            "slug": "ai-doom-or-boom",
            "title": "AI: doom or boom?",
            "start": "2026-11-10T10:00",
            "end": "2026-11-10T10:30",
            "place": "place-001",
            "url": "/events/ai-doom-or-boom/index.html",
            "speakers": ["Ana Lima", "Rui Costa"],
            "summary": "Two views on where the models go next.",
        }
    )
    put_json("/api/v1/live/agenda.json", {"timezone": "Europe/Lisbon", "events": events})
    for event in events:
        files[event["url"]] = (
            "text/html; charset=utf-8",
            (
                f"<!doctype html><title>{event['title']}</title><h1>{event['title']}</h1><p>{event['summary']}</p>"
            ).encode(),
        )

    stories = [
        {
            "id": f"story-{index + 1:04d}",
            "title": sentence(rng, rng.randint(5, 10)).rstrip("."),
            "desk": rng.choice(["ai", "climate", "money", "policy", "culture"]),
            "status": rng.choice(["draft", "review", "published"]),
            "body": " ".join(sentence(rng, rng.randint(8, 20)) for _ in range(rng.randint(3, 8))),
        }
        for index in range(STORY_COUNT)
    ]
    desks = [
        {"id": desk, "name": desk.title(), "editors": rng.randint(1, 5)}
        for desk in ["ai", "climate", "money", "policy", "culture"]
    ]
    put_json("/api/v1/newsroom/desks.json", {"desks": desks})
    put_json("/api/v1/newsroom/stories.json", {"stories": stories})
    put_json(
        "/api/v1/newsroom/dashboard.json",
        {
            "published": sum(1 for s in stories if s["status"] == "published"),
            "inReview": sum(1 for s in stories if s["status"] == "review"),
            "drafts": sum(1 for s in stories if s["status"] == "draft"),
        },
    )
    put_json(
        "/api/v1/newsroom/decisions.json",
        {
            "decisions": [
                {
                    "id": f"d-{i}",
                    "question": sentence(rng, 8),
                    "owner": PERSON_ID if i % 3 == 0 else f"p-{i:04d}",
                    "due": f"2026-11-{10 + i % 4}T18:00:00.000Z",
                }
                for i in range(40)
            ]
        },
    )
    put_json("/api/v1/newsroom/status.json", {"state": "live", "updatedAt": "2026-11-10T08:55:00.000Z"})
    put_json(
        "/api/v1/newsletter.json",
        {
            "issues": [
                {"id": f"n-{i}", "subject": sentence(rng, 6), "sections": [sentence(rng, 25) for _ in range(5)]}
                for i in range(30)
            ]
        },
    )
    put_json("/api/v1/story.json", {"stories": stories[:60]})
    put_json(
        "/api/v1/search/docs.json",
        {
            "docs": [
                {"id": f"doc-{i}", "title": sentence(rng, 5), "text": sentence(rng, 40), "url": f"/docs/{i}.html"}
                for i in range(DOC_COUNT)
            ]
        },
    )
    items = "".join(
        f"<item><title>{s['title']}</title><link>/stories/{s['id']}.html</link><guid>{s['id']}</guid></item>"
        for s in stories[:50]
    )
    files["/feed.xml"] = (
        "application/rss+xml",
        (
            '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>PrompTugal</title>'
            f"{items}</channel></rss>"
        ).encode(),
    )

    put_json(
        "/me.json",
        {
            "personId": PERSON_ID,
            "name": "Inês Duarte",
            "team": "newsroom",
            "counts": {"badge": 4, "onlyYou": 1, "decide": 2, "overdue": 1},
            "people": [{"id": pid, "name": name} for pid, name in PEOPLE],
            "peopleCount": len(PEOPLE),
        },
    )
    put_json(
        f"/people/{PERSON_ID}/app/data.json",
        {
            "tasks": [{"id": f"t-{i}", "title": sentence(rng, 6), "done": i % 4 == 0} for i in range(25)],
            "decisions": [{"id": f"d-{i}", "question": sentence(rng, 8)} for i in range(0, 40, 3)],
            "namedForMe": [{"id": f"m-{i}", "text": sentence(rng, 10)} for i in range(6)],
            "today": [{"at": f"2026-11-10T{9 + i:02d}:00", "what": sentence(rng, 5)} for i in range(8)],
        },
    )
    put_json(
        "/meetings/index.json",
        {
            "meetings": [
                {
                    "id": f"mt-{i}",
                    "kind": rng.choice(["stand-up", "briefing"]),
                    "at": f"2026-11-{10 + i % 4}T08:30",
                    "notes": sentence(rng, 30),
                }
                for i in range(16)
            ]
        },
    )
    for name in ["wakes", "reports", "pulse", "log"]:
        put_json(
            f"/{name}/index.json",
            {
                name: [
                    {
                        "id": f"{name}-{i}",
                        "agent": rng.choice(["desk-bot", "scout", "editor"]),
                        "at": f"2026-11-10T0{i % 9}:00:00.000Z",
                        "text": sentence(rng, 20),
                    }
                    for i in range(50)
                ]
            },
        )

    files["/llms.txt"] = (
        "text/plain; charset=utf-8",
        "\n".join(
            [
                "# Team site",
                "",
                "> The team's public data, read without keys.",
                "",
                "## People",
                "- [Me](/me.json): who the reader is, with counts",
                f"- [Command centre](/people/{PERSON_ID}/app/data.json): tasks, decisions, today",
                "",
                "## Meetings",
                "- [Meetings](/meetings/index.json): stand-ups and briefings",
                "",
                "## Agents",
                "- [Wakes](/wakes/index.json): when agents woke",
                "- [Reports](/reports/index.json): what they reported",
                "- [Pulse](/pulse/index.json): what they are doing",
                "- [Log](/log/index.json): everything, newest first",
                "",
            ]
        ).encode(),
    )
    return files


def build_second_files() -> dict[str, tuple[str, bytes]]:
    """The second fixture (`--fixture second`): the same meanings as `build_files` under other paths in
    `llms.txt` and other field names, as another site following seed section 6 might publish them. The fixed
    paths of the seed stay (they are the app's contract); everything the seed leaves open differs."""
    rng = random.Random(SEED + 2)
    files: dict[str, tuple[str, bytes]] = {}

    def put_json(path: str, value) -> None:
        files[path] = ("application/json", json.dumps(value, ensure_ascii=False, indent=1).encode())

    # 95 places under `items`, 12 with coordinates, the others with JSON nulls for them.
    places = []
    for index in range(95):
        located = index % 8 == 0 and index < 96
        places.append(
            {
                "slug": f"spot-{index + 1:03d}",
                "title": f"Spot {index + 1}",
                "type": rng.choice(["stage", "room", "booth", "lounge"]),
                "building": rng.choice(["Pavilion 1", "Pavilion 2", "Altice Arena"]),
                "seats": rng.choice([40, 120, 300]),
                "latitude": round(38.76 + index / 10000, 5) if located else None,
                "longitude": round(-9.09 - index / 10000, 5) if located else None,
            }
        )
    put_json("/api/v1/places.json", {"items": places})

    # The agenda under `sessions`: the slug from `id` (even events) or only from `url` (odd ones); starts
    # with an offset (every third) or in Lisbon wall time.
    sessions = []
    for index, title, slug, start in event_slugs(rng, 240, (3, 6)):
        session = {
            "name": title,
            "startsAt": start.strftime("%Y-%m-%dT%H:%M:00+00:00")
            if index % 3 == 0
            else start.strftime("%Y-%m-%dT%H:%M"),
            "endsAt": (start + timedelta(minutes=30)).strftime("%Y-%m-%dT%H:%M"),
            "location": places[rng.randrange(len(places))]["slug"],
            "url": f"https://promptugal.news/2026/events/{slug}/index.html",
        }
        if index % 2 == 0:
            session["id"] = slug
        sessions.append(session)
    sessions += [
        {
            "name": "AI: doom or boom?",
            "startsAt": "2026-11-10T10:00",
            "location": "spot-001",
            "url": "/events/ai-doom-or-boom/index.html",
        },
        {
            "id": "lisbon-offset-early",
            "name": "Early, with an offset",
            "startsAt": "2026-11-10T10:30:00+01:00",
            "url": "/events/lisbon-offset-early/index.html",
        },
        {"name": "Middle, in UTC", "startsAt": "2026-11-10T09:45:00Z", "url": "/events/utc-z-middle/index.html"},
    ]
    put_json("/api/v1/live/agenda.json", {"tz": "Europe/Lisbon", "sessions": sessions})

    put_json(
        "/me.json",
        {
            "me": {"id": PERSON_ID, "displayName": "Inês Duarte", "team": "newsroom"},
            "badges": {"total": 4, "only_you": 1, "to_decide": 2, "overdue": 1},
            "members": [{"key": pid, "displayName": name} for pid, name in PEOPLE],
        },
    )
    put_json(
        f"/people/{PERSON_ID}/app/data.json",
        {
            "todo": [
                {"key": f"t-{i}", "text": sentence(rng, 6), "status": "done" if i % 4 == 0 else "open"}
                for i in range(25)
            ],
            "decide": [{"key": f"d-{i}", "title": sentence(rng, 8)} for i in range(0, 40, 3)],
            "mentions": [{"key": f"m-{i}", "body": sentence(rng, 10)} for i in range(6)],
            "agenda": [{"time": f"2026-11-10T{9 + i:02d}:00", "title": sentence(rng, 5)} for i in range(8)],
        },
    )

    stories = [{"key": f"s-{i}", "headline": sentence(rng, 7), "state": "published"} for i in range(40)]
    put_json("/api/v1/newsroom/desks.json", {"items": [{"key": d, "label": d.title()} for d in ["ai", "money"]]})
    put_json("/api/v1/newsroom/stories.json", {"items": stories})
    put_json("/api/v1/newsroom/dashboard.json", {"counts": {"published": 40, "review": 0, "draft": 0}})
    put_json(
        "/api/v1/newsroom/decisions.json", {"items": [{"key": f"d-{i}", "ask": sentence(rng, 8)} for i in range(9)]}
    )
    put_json("/api/v1/newsroom/status.json", {"status": "live", "as_of": "2026-11-10T08:55:00Z"})
    put_json("/api/v1/newsletter.json", {"editions": [{"key": f"e-{i}", "title": sentence(rng, 6)} for i in range(12)]})
    put_json("/api/v1/story.json", {"items": stories[:10]})
    put_json(
        "/api/v1/search/docs.json", {"documents": [{"key": f"doc-{i}", "title": sentence(rng, 5)} for i in range(300)]}
    )
    entries = "".join(
        f'<entry><title>{s["headline"]}</title><link href="https://promptugal.news/s/{s["key"]}.html"/>'
        f"<id>urn:promptugal:{s['key']}</id><updated>2026-11-10T0{i % 9}:00:00Z</updated></entry>"
        for i, s in enumerate(stories[:20])
    )
    files["/feed.xml"] = (
        "application/atom+xml",
        (
            f'<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>PrompTugal</title>{entries}</feed>'
        ).encode(),
    )

    def feed_of(count: int, what: str) -> dict:
        return {
            "entries": [
                {"when": f"2026-11-10T0{i % 9}:15:00Z", "what": f"{what}: {sentence(rng, 8)}"} for i in range(count)
            ]
        }

    put_json(
        "/data/team/standups-2026-w46.json",
        {"items": [{"day": f"2026-11-1{i}", "notes": sentence(rng, 20)} for i in range(5)]},
    )
    put_json(
        "/data/team/briefings.json", {"items": [{"day": f"2026-11-1{i}", "notes": sentence(rng, 20)} for i in range(3)]}
    )
    put_json("/data/agents/wake-ups.json", feed_of(20, "woke"))
    put_json("/data/agents/daily-reports.json", feed_of(7, "reported"))
    put_json("/data/agents/now.json", feed_of(3, "doing"))
    put_json("/data/agents/everything.json", feed_of(40, "did"))
    files["/llms.txt"] = (
        "text/plain; charset=utf-8",
        "\n".join(
            [
                "# PrompTugal team site",
                "",
                "> Public data of the team, for readers and agents.",
                "",
                "## Who",
                "- [Me](/me.json): the reader, with badges",
                "",
                "## Stand-ups and briefings",
                "- [This week](/data/team/standups-2026-w46.json): the week's stand-ups",
                "- [Briefings](/data/team/briefings.json)",
                "- [Briefings page](/meetings/): for people (not JSON)",
                "",
                "## What the agents are doing",
                "- [Wake-ups](/data/agents/wake-ups.json): when each agent woke",
                "- [Agent reports](/data/agents/daily-reports.json)",
                "- [Heartbeat / pulse](/data/agents/now.json)",
                "- [Activity log](/data/agents/everything.json): newest first",
                "- [Activity log (mirror)](https://mirror.example/data/agents/everything.json): another origin",
                "",
            ]
        ).encode(),
    )
    return files


def build_third_files() -> dict[str, tuple[str, bytes]]:
    """The third fixture (`--fixture third`): the first fixture's files, with me.json, places.json, the agenda and
    the command centre in a shape neither the client nor its tests were written against: other container and
    field names, numeric ids, a nested `person`, `geo` points, starts only recognisable as instants, and entries
    that cannot be read (3 events without a slug, 2 places without a name, 1 person without a name or id, 3 tasks
    without text)."""
    files = build_first_files_cached()
    rng = random.Random(SEED + 3)

    def put_json(path: str, value) -> None:
        files[path] = ("application/json", json.dumps(value, ensure_ascii=False, indent=1).encode())

    first_places = json.loads(files["/api/v1/places.json"][1])["places"]
    data = []
    for index, place in enumerate(first_places):
        entry = {"uid": index + 1, "label": place["name"], "hall": place["area"], "size": place["capacity"]}
        entry["geo"] = (
            {"lat": round(38.76 + index / 10000, 5), "lng": round(-9.09 - index / 10000, 5)} if index % 4 == 0 else None
        )
        data.append(entry)
    data += [{"size": 10}, {"size": 20, "geo": None}]
    put_json("/api/v1/places.json", {"version": 3, "data": data})

    first_events = json.loads(files["/api/v1/live/agenda.json"][1])["events"]
    programme = []
    for index, event in enumerate(first_events):
        # Starts with an offset (Lisbon is UTC in November), written under names the client does not know.
        programme.append(
            {
                "eventId": 5000 + index,
                "heading": event["title"],
                "opens": event["start"] + ":00+00:00",
                "closes": event["end"] + ":00+00:00",
                "page": "https://promptugal.news" + event["url"],
                "venue": event["place"],
            }
        )
    programme += [{"heading": "Coffee break", "opens": f"2026-11-1{i}T10:30:00+00:00"} for i in range(3)]
    put_json("/api/v1/live/agenda.json", {"zone": "Europe/Lisbon", "programme": programme})

    put_json(
        "/me.json",
        {
            "person": {"id": PERSON_ID, "fullName": "Inês Duarte"},
            "tallies": {"badgeCount": 4, "onlyYouCount": 1, "toDecide": 2, "overdueCount": 1},
            "team": {
                "name": "newsroom",
                "people": [{"personId": pid, "fullName": name} for pid, name in PEOPLE] + [{"role": "guest"}],
                "size": len(PEOPLE) + 1,
            },
        },
    )
    put_json(
        f"/people/{PERSON_ID}/app/data.json",
        {
            "tasks": [
                {"uid": i, "label": sentence(rng, 6), "state": "done" if i % 3 == 0 else "open"} for i in range(9)
            ]
            + [{"uid": 90 + i, "state": "open"} for i in range(3)],
            "decisions": [{"uid": i, "ask": sentence(rng, 8)} for i in range(4)],
            "namedForMe": [{"uid": i, "snippet": sentence(rng, 10)} for i in range(2)],
            "today": [{"when": f"2026-11-10T{9 + i:02d}:00", "label": sentence(rng, 5)} for i in range(5)],
        },
    )
    return files


_FIRST_FILES: dict[str, tuple[str, bytes]] = {}


def build_first_files_cached() -> dict[str, tuple[str, bytes]]:
    """A copy of the first fixture's files (built once)."""
    if not _FIRST_FILES:
        _FIRST_FILES.update(build_files())
    return dict(_FIRST_FILES)


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class Server(ThreadingHTTPServer):
    """A thread per request, with room for the suite's parallel connections (socketserver's backlog is 5: the
    kernel dropped handshakes, and a client's SYN retried after 1, 3, 7, 15 s)."""

    daemon_threads = True
    request_queue_size = 1024


class State:
    def __init__(self) -> None:
        self.vaults: dict[str, str] = {}
        self.files: dict[str, tuple[str, bytes]] = {}


STATE = State()


def failure(status: int, path: str) -> tuple[str, bytes]:
    """The body of a failure armed with `POST /_control/fail`."""
    return "application/json", json.dumps({"error": "fault", "message": "Injected fault."}).encode()


class Handler(StandInHandler):
    protocol_version = "HTTP/1.1"
    server_version = "PrompTugalStandIn/1"
    standin_log = RequestLog()
    standin_faults = Faults()
    standin_clock = Clock(iso)
    standin_switch = "PROMPTUGAL_REF_CONTROL"

    def log_message(self, *args) -> None:  # quiet
        pass

    def send_body(self, status: int, media: str, body: bytes, extra: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", media)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_json(self, status: int, value) -> None:
        self.send_body(status, "application/json", json.dumps(value).encode())

    def read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def logged(self, body: bytes) -> dict:
        """PrompTugal's own fields of a request log entry: the headers and the body, so a test can check
        what a request carried (team data is public: no request carries a secret of the reader's)."""
        return {"headers": dict(self.headers.items()), "body": body.decode("utf-8", "replace")}

    def do_GET(self) -> None:
        self.handle_any()

    def do_HEAD(self) -> None:
        self.handle_any()

    def do_POST(self) -> None:
        self.handle_any()

    def do_DELETE(self) -> None:
        self.handle_any()

    def handle_any(self) -> None:
        body = self.read_body()
        parts = urlsplit(self.path)
        path = parts.path
        if path.startswith("/_control/"):
            return self.serve_control(body, self.no_control)
        if self.standin_begin(failure, **self.logged(body)):
            return
        if path.startswith("/api/vault/"):
            return self.vault(path, parse_qs(parts.query))
        if self.command not in ("GET", "HEAD"):
            return self.send_json(405, {"error": "method_not_allowed", "message": "The site is read-only."})
        entry = STATE.files.get(path) or (STATE.files.get(path + "index.html") if path.endswith("/") else None)
        if entry is None:
            return self.send_json(404, {"error": "not_found", "message": f"No file at {path}."})
        media, data = entry
        self.send_body(200, media, data, {"Cache-Control": "max-age=60"})

    def vault(self, path: str, query: dict) -> None:
        """A static vault host: `read/<vault_id>/<file id>` and `list/<vault_id>?prefix=` from a folder of objects."""
        parts = path.split("/", 5)  # "", "api", "vault", route, vault id, rest
        if len(parts) < 5 or parts[4] not in STATE.vaults:
            return self.send_json(404, {"error": "not_found", "message": "No such vault."})
        root = STATE.vaults[parts[4]]
        if parts[3] == "read" and len(parts) == 6:
            file_id = unquote(parts[5])
            if any(p in ("", ".", "..") for p in file_id.split("/")):
                return self.send_json(400, {"error": "bad_id", "message": "Bad file id."})
            full = os.path.join(root, file_id)
            if not os.path.isfile(full):
                return self.send_json(404, {"error": "not_found", "message": "No such file."})
            with open(full, "rb") as handle:
                return self.send_body(200, "application/octet-stream", handle.read())
        if parts[3] == "list":
            prefix = (query.get("prefix") or [""])[0]
            names = []
            for folder, _, files in os.walk(root):
                for name in files:
                    rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
                    if rel.startswith(prefix):
                        names.append(rel)
            return self.send_json(200, {"files": sorted(names)})
        self.send_json(404, {"error": "not_found", "message": "No such route."})

    def no_control(self) -> None:
        self.send_json(404, {"error": "not_found", "message": f"No control endpoint at {urlsplit(self.path).path}."})

    # ---- control endpoints (standin.control; `requests`, `fail` and `drop-reply` are the shared ones) ----

    def control_reset(self, query: dict, body: bytes) -> None:
        self.standin_faults.clear()
        self.standin_log.clear()
        self.send_json(200, {"ok": True})

    def control_echo(self, query: dict, body: bytes) -> None:
        """Answers with what arrived (and logs it), so a test can check what a request carried."""
        self.standin_record(**self.logged(body))
        self.send_json(
            200,
            {
                "method": self.command,
                "query": urlsplit(self.path).query,
                "headers": dict(self.headers.items()),
                "body": body.decode("utf-8", "replace"),
            },
        )

    def control_redirect(self, query: dict, body: bytes) -> None:
        """`?to=<url>&status=302`: a redirect (logged)."""
        self.standin_record(**self.logged(body))
        self.send_body(int(query.get("status", "302")), "text/plain", b"moved", {"Location": query.get("to", "/")})

    def control_vault(self, query: dict, body: bytes) -> None:
        """`POST {"vault_id", "folder"}`: serves a folder of stored vault objects (a vault a test wrote) on the
        read and list routes, as a static host would."""
        spec = json.loads(body or b"{}")
        vault_id, folder = spec.get("vault_id"), spec.get("folder")
        if not isinstance(vault_id, str) or not isinstance(folder, str) or not os.path.isdir(folder):
            return self.send_json(422, {"error": {"code": "invalid", "message": "vault_id and an existing folder."}})
        STATE.vaults[vault_id] = folder
        self.send_json(200, {"ok": True})

    def control_sizes(self, query: dict, body: bytes) -> None:
        self.send_json(
            200, {path: len(data) for path, (_, data) in sorted(STATE.files.items()) if not path.startswith("/events/")}
        )

    standin_endpoints = {  # noqa: RUF012 (read only)
        "reset": control_reset,
        "echo": control_echo,
        "redirect": control_redirect,
        "sizes": control_sizes,
        "vault": control_vault,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--vault",
        action="append",
        default=[],
        help="VAULT_ID=FOLDER: serve a folder of stored vault objects on the SG/Send read routes",
    )
    parser.add_argument(
        "--fixture",
        choices=["first", "second", "third"],
        default="first",
        help="which fixture to serve: the first, the second (other paths in llms.txt, other field names) or the third "
        "(shapes neither the client nor its tests were written against)",
    )
    args = parser.parse_args()
    builders = {"first": build_files, "second": build_second_files, "third": build_third_files}
    STATE.files = builders[args.fixture]()
    for spec in args.vault:
        vid, _, folder = spec.partition("=")
        if os.path.isdir(folder):
            STATE.vaults[vid] = folder
    server = Server(("127.0.0.1", args.port), Handler)
    print(f"READY {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
