"""Pipeline input: `POST P/reports` with the pipeline token (`Authorization: Bearer mwt_…`).

A report naming a branch or a pull request makes or updates a change (its head, base and state) and
moves it to the top of the list (M-CHG-1, O-20); a report naming neither makes no change. Each failing
test on a change's head gets a failure question (once per test and head), which the change's gate
lists until it is decided. Each result naming cases is recorded on the slots of the project's open runs
that accept that commit (M-PLAN-5). Every change publishes a `change` event with the change's row and
gate verdict, so the list and an open page follow it live.
"""

import json

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

import routes_changes
from common import S, json_body, keyed, refuse
from events import publish
from standin.passwords import token_hash

PIPELINE_OUTCOMES = ("pass", "fail", "error", "skip", "blocked")


def pipeline_project(request: Request) -> str:
    """The project the bearer token is good for, which must be the one in the path; 401 otherwise."""
    auth = request.headers.get("authorization", "")
    token = auth[7:] if auth.startswith("Bearer ") else ""
    row = S.store.one("SELECT * FROM pipeline_tokens WHERE token_hash = ?", token_hash(token)) if token else None
    if row is None or row["project"] != request.path_params["key"]:
        raise refuse(401, "not_signed_in", "A report needs the project's pipeline token.")
    return row["project"]


FAILURE_ANSWERS = [
    {
        "key": "defect",
        "label": "Defect in the product",
        "sentence": "Keeps the failure on the gate and records where it is tracked.",
        "reason_required": False,
        "asks_tracker": True,
    },
    {
        "key": "flaky",
        "label": "Flaky test",
        "sentence": "Takes the failure off the gate and marks the test as flaky.",
        "reason_required": True,
        "asks_tracker": False,
    },
    {
        "key": "test_wrong",
        "label": "The test is wrong",
        "sentence": "Takes the failure off the gate until the test is fixed.",
        "reason_required": False,
        "asks_tracker": False,
    },
]


def question_title(test: str) -> str:
    """`checkout.spec.ts › pays with card` → `checkout › pays with card`."""
    first, sep, rest = test.partition(" › ")
    return (first.split(".")[0] or first) + sep + rest


def ask_about_failures(store, key: str, change_id: str, commit: str, job: str, results: list, now: str) -> None:
    """A failing test on a change's head gets a failure question, once per test and head."""
    for item in results:
        if not isinstance(item, dict) or item.get("outcome") not in ("fail", "error"):
            continue
        test = item.get("test")
        if not isinstance(test, str) or not test:
            continue
        known = False
        for row in store.all("SELECT evidence FROM questions WHERE change_id = ? AND kind = 'failure'", change_id):
            failure = json.loads(row["evidence"]).get("failure", {})
            known = known or (failure.get("test") == test and failure.get("commit") == commit)
        if known:
            continue
        evidence = {
            "failure": {
                "test": test,
                "message": item.get("message") or "",
                "job": job,
                "commit": commit,
                "location": item.get("location") or "",
            }
        }
        qid = store.new_id("q")
        store.run(
            "INSERT INTO questions VALUES (?,?,?,?,?,?,?,?,?,?,?,NULL)",
            qid,
            key,
            "failure",
            question_title(test),
            "open",
            now,
            json.dumps(evidence),
            json.dumps(FAILURE_ANSWERS),
            1,
            None,
            change_id,
        )
        publish(store, key, "question", {"id": qid, "kind": "failure", "state": "open", "change": change_id})


def apply_report(store, key: str, data: dict, raw: str) -> str | None:
    """Records a report; returns the change it made or updated (M-CHG-1: none without a branch or a
    pull request)."""
    commit = data.get("commit")
    if not isinstance(commit, str) or not commit:
        raise refuse(422, "invalid", "A report names its commit.", fields={"commit": "required"})
    results = data.get("results") or []
    if not isinstance(results, list):
        raise refuse(422, "invalid", "results is a list.", fields={"results": "not_list"})
    now = store.clock.stamp()
    branch = data.get("branch") if isinstance(data.get("branch"), str) and data.get("branch") else None
    pull_request = data.get("pull_request") if isinstance(data.get("pull_request"), int) else None
    job = str(data.get("job") or "")
    change_id = None
    if branch or pull_request:
        existing = store.one(
            "SELECT * FROM changes WHERE project = ? "
            "AND (branch = ? OR (pull_request IS NOT NULL AND pull_request = ?))",
            key,
            branch,
            pull_request,
        )
        state = data.get("state") if data.get("state") in ("open", "merged", "closed") else None
        if existing is None:
            change_id = store.new_id("ch")
            store.run(
                "INSERT INTO changes VALUES (?,?,?,?,?,?,?,?,?,?)",
                change_id,
                key,
                branch,
                pull_request,
                data.get("title") or branch or f"#{pull_request}",
                state or "open",
                commit,
                data.get("base") or "",
                now,
                store.seq(),
            )
        else:
            change_id = existing["id"]
            store.run(
                "UPDATE changes SET head = ?, base = ?, state = ?, title = ?, branch = ?, pull_request = ?, "
                "updated_at = ?, seq = ? WHERE id = ?",
                commit,
                data.get("base") or existing["base"],
                state or existing["state"],
                data.get("title") or existing["title"],
                branch or existing["branch"],
                pull_request or existing["pull_request"],
                now,
                store.seq(),
                change_id,
            )
    store.run(
        "INSERT INTO reports (project, change_id, commit_sha, job, body, at) VALUES (?,?,?,?,?,?)",
        key,
        change_id,
        commit,
        job,
        raw,
        now,
    )
    # Results go to the slots of open runs that accept this commit, and no other run.
    runs = store.all("SELECT id FROM runs WHERE project = ? AND state = 'open' AND accepts_commit = ?", key, commit)
    for item in results:
        outcome = item.get("outcome") if isinstance(item, dict) else None
        if outcome not in PIPELINE_OUTCOMES:
            continue
        numbers = [
            int(c[2:])
            for c in item.get("cases", [])
            if isinstance(c, str) and c.upper().startswith("C-") and c[2:].isdigit()
        ]
        for run in runs:
            for number in numbers:
                slot = store.one(
                    "SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id WHERE s.run_id = ? AND c.number = ?",
                    run["id"],
                    number,
                )
                if slot is not None:
                    store.run(
                        "INSERT INTO results VALUES (?,?,?,?,NULL,NULL,'u_0',?,'pipeline',?,?)",
                        store.new_id("res"),
                        store.seq(),
                        slot["id"],
                        outcome,
                        now,
                        commit,
                        item.get("message"),
                    )
    if change_id is not None:
        ask_about_failures(store, key, change_id, commit, job, results, now)
        change = store.one("SELECT * FROM changes WHERE id = ?", change_id)
        publish(store, key, "change", routes_changes.summary(change))
    for run in runs:
        publish(store, key, "run", {"id": run["id"]})
    return change_id


async def report(request: Request):
    key = pipeline_project(request)
    data = await json_body(request)
    raw = (await request.body()).decode()
    store = S.store
    with store.transaction():  # one commit for the report's rows and events
        change_id = apply_report(store, key, data, raw)
    return JSONResponse({"change": change_id}, status_code=202)


routes = [
    Route("/api/projects/{key}/reports", keyed(report), methods=["POST"]),
]
