"""SQLite storage and fixtures of the Mainworthy reference server (a stand-in, see README.md).

One database file per server process. Every table a later part needs (changes, reports, events,
proposals, case versions) is here already, so the endpoints of that part slot in without a new
schema: they read and write the same rows the fixture loads.

Rules kept here:
- ids are prefixed strings made from one counter per prefix (`q_`, `d_`, `r_`, `s_`, `c_`, `ch_`, `f_`,
  `se_`, `res_`, `pr_`, `u_`);
- every write to a project goes through `events.publish()`, which appends an event (the live stream
  reads them) and sets the project's `revision` to that event's id, so list replies carry a revision
  that rises with every change;
- times are ISO 8601 UTC with `Z`.

The rows live in the shared store (`standin.store.Store`, without snapshots: each reset builds the fixture
again, so its times are relative to the moment of the reset).
"""

import json
import secrets
from datetime import UTC, datetime

import cases_fixture
import events
from standin.clock import Clock
from standin.passwords import hash_password, token_hash
from standin.store import Store

SCHEMA = """
CREATE TABLE users (
    id TEXT PRIMARY KEY, name TEXT UNIQUE NOT NULL, password_hash TEXT);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, token_hash TEXT UNIQUE NOT NULL, client TEXT NOT NULL,
    opened_by TEXT NOT NULL, opened_at TEXT NOT NULL, opened_from TEXT NOT NULL,
    last_used_at TEXT NOT NULL, last_used_from TEXT NOT NULL, ended INTEGER NOT NULL DEFAULT 0);
CREATE TABLE pipeline_tokens (
    id TEXT PRIMARY KEY, project TEXT NOT NULL, token_hash TEXT UNIQUE NOT NULL, name TEXT NOT NULL);
CREATE TABLE projects (key TEXT PRIMARY KEY, name TEXT NOT NULL, revision INTEGER NOT NULL DEFAULT 0,
    position INTEGER NOT NULL);
CREATE TABLE memberships (
    user_id TEXT NOT NULL, project TEXT NOT NULL, capabilities TEXT NOT NULL, PRIMARY KEY (user_id, project));
CREATE TABLE folders (
    id TEXT PRIMARY KEY, project TEXT NOT NULL, name TEXT NOT NULL, parent_id TEXT, system INTEGER NOT NULL DEFAULT 0,
    position INTEGER NOT NULL);
CREATE TABLE tags (project TEXT NOT NULL, name TEXT NOT NULL, PRIMARY KEY (project, name));
CREATE TABLE cases (
    id TEXT PRIMARY KEY, project TEXT NOT NULL, number INTEGER NOT NULL, folder_id TEXT NOT NULL,
    version INTEGER NOT NULL, archived INTEGER NOT NULL DEFAULT 0, UNIQUE (project, number));
CREATE TABLE case_versions (
    case_id TEXT NOT NULL, version INTEGER NOT NULL, title TEXT NOT NULL, preconditions TEXT NOT NULL,
    steps TEXT NOT NULL, author_id TEXT NOT NULL, at TEXT NOT NULL, reason TEXT,
    PRIMARY KEY (case_id, version));
CREATE TABLE case_tags (case_id TEXT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (case_id, tag));
CREATE TABLE questions (
    id TEXT PRIMARY KEY, project TEXT NOT NULL, kind TEXT NOT NULL, title TEXT NOT NULL,
    state TEXT NOT NULL, waiting_since TEXT NOT NULL, evidence TEXT NOT NULL, answers TEXT NOT NULL,
    withdraw_reason_required INTEGER NOT NULL DEFAULT 0, run_id TEXT, change_id TEXT, proposal_id TEXT);
CREATE TABLE ledger (
    id TEXT PRIMARY KEY, seq INTEGER NOT NULL, project TEXT NOT NULL, question_id TEXT NOT NULL,
    type TEXT NOT NULL, answer TEXT, reason TEXT, tracker TEXT, withdraws TEXT, by_id TEXT NOT NULL, at TEXT NOT NULL);
CREATE TABLE runs (
    id TEXT PRIMARY KEY, project TEXT NOT NULL, name TEXT NOT NULL, state TEXT NOT NULL,
    accepts_commit TEXT, created_by TEXT NOT NULL, created_at TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE TABLE slots (
    id TEXT PRIMARY KEY, run_id TEXT NOT NULL, position INTEGER NOT NULL, case_id TEXT NOT NULL,
    case_version INTEGER NOT NULL);
CREATE TABLE results (
    id TEXT PRIMARY KEY, seq INTEGER NOT NULL, slot_id TEXT NOT NULL, outcome TEXT NOT NULL, note TEXT,
    failed_step INTEGER, by_id TEXT NOT NULL, at TEXT NOT NULL, source TEXT NOT NULL DEFAULT 'manual',
    commit_sha TEXT, message TEXT);
CREATE TABLE changes (
    id TEXT PRIMARY KEY, project TEXT NOT NULL, branch TEXT, pull_request INTEGER, title TEXT NOT NULL,
    state TEXT NOT NULL, head TEXT NOT NULL, base TEXT NOT NULL, updated_at TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE TABLE reports (
    id INTEGER PRIMARY KEY AUTOINCREMENT, project TEXT NOT NULL, change_id TEXT, commit_sha TEXT NOT NULL,
    job TEXT NOT NULL, body TEXT NOT NULL, at TEXT NOT NULL);
CREATE TABLE proposals (
    id TEXT PRIMARY KEY, project TEXT NOT NULL, op TEXT NOT NULL, state TEXT NOT NULL, case_id TEXT,
    base_version INTEGER, document TEXT, reason TEXT, question_id TEXT, by_id TEXT NOT NULL, at TEXT NOT NULL);
CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT, project TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL,
    at TEXT NOT NULL);
CREATE TABLE idempotency (
    scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, status INTEGER NOT NULL,
    headers TEXT NOT NULL, body BLOB NOT NULL, stored_at REAL NOT NULL, PRIMARY KEY (scope, key));
"""

# The fixture passwords are public test data; tests read them from GET /_control/fixture.
PASSWORDS = {"ada": "ada-Passw0rd-1", "bo": "bo-Passw0rd-2"}
PIPELINE_TOKEN = "mwt_fixture_pipeline_token_shop"


def iso(seconds: float) -> str:
    """Mainworthy's times: ISO 8601 UTC with milliseconds and `Z`."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def open_store(path: str) -> Store:
    """The server's store in a fresh file at `path`, with the default fixture loaded."""
    return Store(path, SCHEMA, FIXTURES, clock=Clock(iso))


def case_title(number: int) -> str:
    special = {
        1: "Add an item to the cart",
        2: "Remove an item from the cart",
        3: "Apply a discount code",
        4: "Change the delivery address",
        12: "Pay by card",
        13: "Pay by bank transfer",
        14: "Refund a payment",
    }
    return special.get(number, f"Checkout scenario {number}")


def default_steps(number: int) -> list:
    return [
        {"action": "Open the cart", "expected": None},
        {"action": f"Follow scenario {number}", "expected": "The page shows the next step"},
        {"action": "Submit", "expected": "A confirmation appears"},
    ]


def fixture_default(s: Store) -> None:
    db = s.db
    t0 = s.clock.now() - 30 * 86400

    def at(days: float) -> str:
        return iso(t0 + days * 86400)

    ada, bo, cy = s.new_id("u"), s.new_id("u"), s.new_id("u")
    db.execute("INSERT INTO users VALUES (?,?,?)", (ada, "ada", hash_password(PASSWORDS["ada"])))
    db.execute("INSERT INTO users VALUES (?,?,?)", (bo, "bo", hash_password(PASSWORDS["bo"])))
    db.execute("INSERT INTO users VALUES (?,?,?)", (cy, "cy", None))  # passkey only

    def session(user, client, opened_by, days, place):
        db.execute(
            "INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?,?,0)",
            (
                s.new_id("se"),
                user,
                token_hash(secrets.token_urlsafe(24)),
                client,
                opened_by,
                at(days),
                place,
                at(days + 1),
                place,
            ),
        )

    session(ada, "Firefox on macOS", "passkey", 2, "Lisbon, PT")
    session(bo, "Safari on iPadOS", "password", 3, "Porto, PT")
    session(bo, "Chrome on Linux", "passkey", 4, "Braga, PT")
    session(cy, "Firefox on Linux", "passkey", 5, "Faro, PT")

    db.execute("INSERT INTO projects VALUES ('shop', 'Shop', 0, 1)")
    db.execute("INSERT INTO projects VALUES ('ops', 'Operations', 0, 2)")
    every = json.dumps(["read", "decide", "produce", "plan"])
    db.execute("INSERT INTO memberships VALUES (?, 'shop', ?)", (ada, every))
    db.execute("INSERT INTO memberships VALUES (?, 'shop', ?)", (bo, json.dumps(["read"])))
    db.execute("INSERT INTO memberships VALUES (?, 'shop', ?)", (cy, json.dumps(["read", "decide"])))
    db.execute("INSERT INTO memberships VALUES (?, 'ops', ?)", (ada, json.dumps(["read"])))
    db.execute("INSERT INTO pipeline_tokens VALUES ('pt_1', 'shop', ?, 'CI')", (token_hash(PIPELINE_TOKEN),))

    unsorted, checkout, payments = s.new_id("f"), s.new_id("f"), s.new_id("f")
    ops_unsorted = s.new_id("f")
    db.execute("INSERT INTO folders VALUES (?, 'shop', 'Unsorted', NULL, 1, 0)", (unsorted,))
    db.execute("INSERT INTO folders VALUES (?, 'shop', 'Checkout', NULL, 0, 1)", (checkout,))
    db.execute("INSERT INTO folders VALUES (?, 'shop', 'Payments', ?, 0, 1)", (payments, checkout))
    db.execute("INSERT INTO folders VALUES (?, 'ops', 'Unsorted', NULL, 1, 0)", (ops_unsorted,))
    db.execute("INSERT INTO tags VALUES ('shop', 'smoke')")
    db.execute("INSERT INTO tags VALUES ('shop', 'nightly')")  # used by no case

    case_ids = {}
    for number in range(1, 121):
        cid = s.new_id("c")
        case_ids[number] = cid
        if 10 <= number <= 19:
            folder = payments
        elif number <= 40:
            folder = checkout
        else:
            folder = unsorted
        versions = 3 if number == 12 else 1
        db.execute("INSERT INTO cases VALUES (?, 'shop', ?, ?, ?, 0)", (cid, number, folder, versions))
        for version in range(1, versions + 1):
            title = case_title(number) if version == versions else f"{case_title(number)} (version {version})"
            steps = default_steps(number)
            if number == 12 and version < versions:
                steps = [{"action": "Open the old card form", "expected": None}, *steps[1:]]
            db.execute(
                "INSERT INTO case_versions VALUES (?,?,?,?,?,?,?,?)",
                (
                    cid,
                    version,
                    title,
                    "Signed in as a customer with a filled cart.",
                    json.dumps(steps),
                    ada,
                    at(version),
                    None if version == 1 else "Card form changed",
                ),
            )
        if number <= 40:
            db.execute("INSERT INTO case_tags VALUES (?, 'smoke')", (cid,))
    for number in range(1, 4):
        cid = s.new_id("c")
        db.execute("INSERT INTO cases VALUES (?, 'ops', ?, ?, 1, 0)", (cid, number, ops_unsorted))
        db.execute(
            "INSERT INTO case_versions VALUES (?,1,?,?,?,?,?,NULL)",
            (cid, f"Runbook step {number}", "", json.dumps(default_steps(number)), ada, at(1)),
        )

    # Runs: an open one of five slots (C-12 pinned at version 2, before its last edit) and a closed one.
    open_run, closed_run = s.new_id("r"), s.new_id("r")
    db.execute(
        "INSERT INTO runs VALUES (?, 'shop', 'Release 4.2', 'open', 'a1b2c3d', ?, ?, ?)",
        (open_run, ada, at(20), s.seq()),
    )
    slot_ids = []
    for position, (number, version) in enumerate([(12, 2), (1, 1), (2, 1), (3, 1), (4, 1)], start=1):
        sid = s.new_id("s")
        slot_ids.append(sid)
        db.execute("INSERT INTO slots VALUES (?,?,?,?,?)", (sid, open_run, position, case_ids[number], version))
    db.execute(
        "INSERT INTO results VALUES (?,?,?,'fail','500 on submit',2,?,?,'manual',NULL,NULL)",
        (s.new_id("res"), s.seq(), slot_ids[0], ada, at(21)),
    )
    db.execute(
        "INSERT INTO results VALUES (?,?,?,'pass',NULL,NULL,?,?,'manual',NULL,NULL)",
        (s.new_id("res"), s.seq(), slot_ids[2], bo, at(21)),
    )
    db.execute(
        "INSERT INTO runs VALUES (?, 'shop', 'Release 4.1', 'closed', NULL, ?, ?, ?)",
        (closed_run, ada, at(10), s.seq()),
    )
    for position, number in enumerate([1, 2, 3], start=1):
        sid = s.new_id("s")
        db.execute("INSERT INTO slots VALUES (?,?,?,?,1)", (sid, closed_run, position, case_ids[number]))
        db.execute(
            "INSERT INTO results VALUES (?,?,?,'pass',NULL,NULL,?,?,'manual',NULL,NULL)",
            (s.new_id("res"), s.seq(), sid, ada, at(11)),
        )

    # Questions. Waiting order (oldest first) puts a review before the failure, so the app's
    # "failures first" is its own doing.
    def question(
        kind, title, days, evidence, answers, withdraw_reason=False, run_id=None, state="open", project="shop"
    ):
        qid = s.new_id("q")
        db.execute(
            "INSERT INTO questions VALUES (?,?,?,?,?,?,?,?,?,?,NULL,NULL)",
            (
                qid,
                project,
                kind,
                title,
                state,
                at(days),
                json.dumps(evidence),
                json.dumps(answers),
                1 if withdraw_reason else 0,
                run_id,
            ),
        )
        return qid

    def answer(key, label, sentence, reason=False, tracker=False):
        return {"key": key, "label": label, "sentence": sentence, "reason_required": reason, "asks_tracker": tracker}

    question(
        "review",
        "Review of C-14 found a missing step",
        5,
        {
            "review": {
                "case": {"id": case_ids[14], "number": "C-14"},
                "finding": "Step 3 has no expected result.",
                "by": {"name": "bo"},
            }
        },
        [
            answer("accept", "Accept the finding", "Opens an edit of C-14 for its author."),
            answer("dismiss", "Dismiss", "Closes the finding without a change.", reason=True),
        ],
    )
    question(
        "failure",
        "checkout › pays with card",
        6,
        {
            "failure": {
                "test": "checkout.spec.ts › pays with card",
                "message": "expected 200, got 500",
                "job": "e2e",
                "commit": "a1b2c3d",
                "location": "checkout.spec.ts:42",
            }
        },
        [
            answer(
                "defect",
                "Defect in the product",
                "Keeps the failure on the gate and records where it is tracked.",
                tracker=True,
            ),
            answer("flaky", "Flaky test", "Takes the failure off the gate and marks the test as flaky.", reason=True),
            answer("test_wrong", "The test is wrong", "Takes the failure off the gate until the test is fixed."),
        ],
        withdraw_reason=True,
    )
    edits = [
        {
            "op": "create_case",
            "document": {
                "title": f"Gift card scenario {i}",
                "preconditions": "",
                "steps": [{"action": "Redeem a gift card", "expected": None}],
            },
        }
        for i in range(1, 21)
    ]
    edits.append(
        {
            "op": "edit_case",
            "case": "C-12",
            "base_version": 3,
            "changes": {"title": ["Pay by card", "Pay by credit card"]},
        }
    )
    question(
        "proposal",
        "Import of 21 gift card cases",
        7,
        {"proposal": {"edit_count": 21, "edits": edits}},
        [
            answer("adopt", "Adopt", "Applies every edit of the proposal."),
            answer("reject", "Reject", "Discards the proposal; nothing changes.", reason=True),
        ],
    )
    question(
        "proposal",
        "Move C-20 to Payments",
        8,
        {
            "proposal": {
                "edit_count": 1,
                "edits": [{"op": "move", "case": "C-20", "to": {"id": payments, "name": "Payments"}}],
            }
        },
        [
            answer("adopt", "Adopt", "Moves the case."),
            answer("reject", "Reject", "Discards the proposal; nothing changes.", reason=True),
        ],
    )
    question(
        "link",
        "Link checkout.spec.ts › applies a coupon to a case",
        9,
        {"link": {"test": "checkout.spec.ts › applies a coupon", "suggested": [{"id": case_ids[3], "number": "C-3"}]}},
        [answer("link", "Link to a case", "Links the test to the case you choose.")],
    )
    question(
        "overlap",
        "Two edits of C-13 overlap",
        10,
        {"overlap": {"case": {"id": case_ids[13], "number": "C-13"}, "fields": ["title"]}},
        [answer("resolve", "Resolve", "Keeps one edit and withdraws the other.")],
    )
    sign_off = question(
        "sign_off",
        "Release 4.1",
        11,
        {"sign_off": {"run": {"id": closed_run, "name": "Release 4.1"}}},
        [answer("sign_off", "Sign off", "Closes the run; it accepts no more results.")],
        run_id=closed_run,
        state="decided",
    )
    db.execute(
        "INSERT INTO ledger VALUES (?,?, 'shop', ?, 'decision', 'sign_off', NULL, NULL, NULL, ?, ?)",
        (s.new_id("d"), s.seq(), sign_off, bo, at(12)),
    )
    question(
        "review",
        "Runbook step 2 needs a rollback",
        3,
        {"review": {"case": {"number": "C-2"}, "finding": "No rollback step.", "by": {"name": "ada"}}},
        [answer("accept", "Accept the finding", "Opens an edit for its author.")],
        project="ops",
    )

    # Changes: three, one merged, each with the pipeline report of its head. Newest report first:
    # fix/vat (passing), feat/cart (failing: the failure question above is its unexplained failure),
    # feat/wallet (merged, passing).
    card_test = "checkout.spec.ts › pays with card"
    for branch, pr, title, state, head, days, results, touches in [
        (
            "feat/cart",
            412,
            "Cart rework",
            "open",
            "a1b2c3d",
            20,
            [
                {
                    "test": card_test,
                    "outcome": "fail",
                    "message": "expected 200, got 500",
                    "cases": ["C-12"],
                    "location": "checkout.spec.ts:42",
                },
                {"test": "cart.spec.ts › adds an item", "outcome": "pass", "cases": ["C-1"]},
            ],
            ["C-12", "C-1", "C-2"],
        ),
        (
            "fix/vat",
            415,
            "VAT rounding",
            "open",
            "b2c3d4e",
            21,
            [{"test": "vat.spec.ts › rounds half up", "outcome": "pass", "cases": ["C-13"]}],
            ["C-13"],
        ),
        (
            "feat/wallet",
            398,
            "Wallet payments",
            "merged",
            "c3d4e5f",
            15,
            [{"test": "wallet.spec.ts › pays with a wallet", "outcome": "pass", "cases": ["C-14"]}],
            ["C-14"],
        ),
    ]:
        change_id = s.new_id("ch")
        db.execute(
            "INSERT INTO changes VALUES (?, 'shop', ?, ?, ?, ?, ?, '0f0e0d0', ?, ?)",
            (change_id, branch, pr, title, state, head, at(days), s.seq()),
        )
        body = {
            "commit": head,
            "base": "0f0e0d0",
            "branch": branch,
            "pull_request": pr,
            "state": state,
            "job": "e2e",
            "results": results,
            "touches": touches,
        }
        db.execute(
            "INSERT INTO reports (project, change_id, commit_sha, job, body, at) VALUES ('shop',?,?,?,?,?)",
            (change_id, head, "e2e", json.dumps(body), at(days)),
        )
        if branch == "feat/cart":
            db.execute(
                "UPDATE questions SET change_id = ? WHERE project = 'shop' AND kind = 'failure' AND title = ?",
                (change_id, "checkout › pays with card"),
            )

    cases_fixture.load(s)  # the cases part: folders at depth, more tags, the acceptance policy

    # Revisions start at 1000 so a test can tell a revision from a count.
    db.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('events', 999)")
    events.publish(s, "shop", "fixture", {"fixture": "default"})
    events.publish(s, "ops", "fixture", {"fixture": "default"})


FIXTURES = {"default": [fixture_default]}
