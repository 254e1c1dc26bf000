"""Changes and the gate: the list (newest 500 by latest report), a change, and its gate, failing tests
and cases, each part naming the `head` it describes (M-CHG-2, M-CHG-3, M-CHG-6, M-CHG-10).

The gate of a change is worked out from the pipeline reports of its head: no report yet → `pending`;
a failing test with no decision on its failure question → `failing`; failures all decided, one of them
a defect in the product → `blocked`; otherwise `passing`. A merged or closed change keeps the verdict
of its last head. A decision on a change's failure question publishes a `change` event with the new
gate, so a watcher sees the verdict turn.

`move_head` (the control endpoint `/_control/move-head`) moves a change's head between two part reads,
as a push during a read would.
"""

import hashlib
import json

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

import events
import shapes
from common import S, guarded, project_access, refuse

LIST_CAP = 500
FAILED = ("fail", "error")
OFF_THE_GATE = ("flaky", "test_wrong")


# ---- reading ------------------------------------------------------------------------------------


def change_row(key: str, change_id: str):
    row = S.store.one("SELECT * FROM changes WHERE id = ? AND project = ?", change_id, key)
    if row is None:
        raise refuse(404, "not_found", "There is no such change in this project.")
    return row


def head_results(change) -> tuple[bool, list[dict], list[str]]:
    """(whether a report names the head, the latest result per test, the cases touched) at the head."""
    reports = S.store.all(
        "SELECT body FROM reports WHERE change_id = ? AND commit_sha = ? ORDER BY id", change["id"], change["head"]
    )
    latest: dict[str, dict] = {}
    touches: list[str] = []
    for report in reports:
        body = json.loads(report["body"] or "{}")
        for item in body.get("results") or []:
            if isinstance(item, dict) and isinstance(item.get("test"), str):
                latest[item["test"]] = {**item, "job": body.get("job")}
        for number in body.get("touches") or []:
            if isinstance(number, str) and number.upper() not in touches:
                touches.append(number.upper())
    return bool(reports), list(latest.values()), touches


def failure_question(change, test: str):
    """The failure question asked about `test` at the change's head, if any."""
    for row in S.store.all("SELECT * FROM questions WHERE change_id = ? AND kind = 'failure'", change["id"]):
        failure = json.loads(row["evidence"]).get("failure", {})
        if failure.get("test") == test and failure.get("commit") == change["head"]:
            return row
    return None


def standing_answer(question_id: str) -> str | None:
    last = S.store.one("SELECT * FROM ledger WHERE question_id = ? ORDER BY seq DESC LIMIT 1", question_id)
    return last["answer"] if last is not None and last["type"] == "decision" else None


def plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def gate(change) -> dict:
    reported, results, _ = head_results(change)
    failing = [r for r in results if r.get("outcome") in FAILED]
    unexplained, defects = 0, 0
    questions = []
    for result in failing:
        question = failure_question(change, result["test"])
        answer = standing_answer(question["id"]) if question is not None else None
        if answer is None:
            unexplained += 1
        elif answer not in OFF_THE_GATE:
            defects += 1
        if question is not None and question["state"] == "open":
            questions.append({"id": question["id"], "kind": "failure", "title": question["title"]})
    if not reported:
        verdict, reason = "pending", f"No pipeline report for {change['head']} yet."
    elif unexplained:
        verdict = "failing"
        reason = f"{plural(unexplained, 'failing test is', 'failing tests are')} unexplained."
    elif defects:
        verdict = "blocked"
        reason = f"{plural(defects, 'failure is a defect', 'failures are defects')} in the product."
    elif failing:
        verdict, reason = "passing", f"{plural(len(failing), 'failure was', 'failures were')} explained."
    else:
        verdict = "passing"
        reason = "The one test passes." if len(results) == 1 else f"All {len(results)} tests pass."
    return {"head": change["head"], "verdict": verdict, "reason": reason, "questions": questions}


def case_ref(key: str, number: str) -> dict | None:
    if not number.upper().startswith("C-") or not number[2:].isdigit():
        return None
    row = S.store.one(
        "SELECT c.id, c.number, v.title FROM cases c "
        "JOIN case_versions v ON v.case_id = c.id AND v.version = c.version WHERE c.project = ? AND c.number = ?",
        key,
        int(number[2:]),
    )
    return {"id": row["id"], "number": f"C-{row['number']}", "title": row["title"]} if row else None


def summary(change, with_gate: bool = True) -> dict:
    item = {
        "id": change["id"],
        "ref": {"branch": change["branch"], "pull_request": change["pull_request"]},
        "title": change["title"],
        "state": change["state"],
        "ended": change["state"] in ("merged", "closed"),
        "head": change["head"],
        "base": change["base"],
        "updated_at": change["updated_at"],
    }
    if with_gate:
        item["gate"] = {"verdict": gate(change)["verdict"]}
    return item


def newest(key: str) -> list:
    """M-CHG-2, O-20: the 500 newest changes by their latest report, newest first."""
    return S.store.all(
        "SELECT * FROM changes WHERE project = ? ORDER BY updated_at DESC, seq DESC LIMIT ?", key, LIST_CAP
    )


# ---- moving the head during a read (control) ----------------------------------------------------

# change id → {"times": reads left to disturb, "after": parts before the move, "count": parts served since the
# control was set}. A read is four parts (the change, its gate, its failing tests, its cases), in whatever order
# the client asks for them (one after the other, or all at once).
MOVES: dict[str, dict] = {}
PARTS = 4


def reset_controls() -> None:
    MOVES.clear()


def move_head(key: str, change_id: str) -> str:
    """Gives the change a new head (as a push would) and publishes its `change` event."""
    row = change_row(key, change_id)
    new_head = hashlib.sha1(f"{row['head']}:{S.store.seq()}".encode()).hexdigest()[:7]
    S.store.run("UPDATE changes SET head = ? WHERE id = ?", new_head, change_id)
    events.publish(S.store, key, "change", summary(change_row(key, change_id)))
    return new_head


def part_served(key: str, change_id: str) -> None:
    rule = MOVES.get(change_id)
    if rule is None or rule["times"] <= 0:
        return
    rule["count"] += 1
    if (rule["count"] - 1) % PARTS + 1 == rule["after"]:
        rule["times"] -= 1
        move_head(key, change_id)


# ---- routes ------------------------------------------------------------------------------------------


async def list_changes(request: Request):
    _, key = project_access(request)
    rows = newest(key)
    return JSONResponse(
        {"revision": events.revision(S.store, key), "items": [shapes.change_row(summary(r)) for r in rows]}
    )


async def get_change(request: Request):
    _, key = project_access(request)
    change = change_row(key, request.path_params["id"])
    reply = shapes.change(summary(change, with_gate=False))
    part_served(key, change["id"])
    return JSONResponse(reply)


async def get_gate(request: Request):
    _, key = project_access(request)
    change = change_row(key, request.path_params["id"])
    reply = gate(change)
    part_served(key, change["id"])
    return JSONResponse(reply)


async def get_failing_tests(request: Request):
    _, key = project_access(request)
    change = change_row(key, request.path_params["id"])
    _, results, _ = head_results(change)
    items = []
    for result in results:
        if result.get("outcome") not in FAILED:
            continue
        question = failure_question(change, result["test"])
        cases = [ref for ref in (case_ref(key, n) for n in result.get("cases") or [] if isinstance(n, str)) if ref]
        items.append(
            {
                "test": result["test"],
                "outcome": result["outcome"],
                "message": result.get("message"),
                "job": result.get("job"),
                "question": {
                    "id": question["id"],
                    "state": question["state"],
                    "answer": standing_answer(question["id"]),
                }
                if question
                else None,
                "cases": cases,
            }
        )
    reply = {"head": change["head"], "items": [shapes.failing_test(item) for item in items]}
    part_served(key, change["id"])
    return JSONResponse(reply)


async def get_cases(request: Request):
    _, key = project_access(request)
    change = change_row(key, request.path_params["id"])
    _, _, touches = head_results(change)
    reply = {"head": change["head"], "items": [ref for ref in (case_ref(key, n) for n in touches) if ref]}
    part_served(key, change["id"])
    return JSONResponse(reply)


# ---- the gate follows decisions ------------------------------------------------------------------


def decision_moves_gate(store, project: str, kind: str, data: dict, event_id: int) -> None:
    """After a decision (or withdrawal) on a change's failure question, the change's new gate is
    published as a `change` event."""
    if kind != "decision" or not isinstance(data.get("question_id"), str):
        return
    question = store.one("SELECT change_id FROM questions WHERE id = ?", data["question_id"])
    if question is None or not question["change_id"]:
        return
    change = store.one("SELECT * FROM changes WHERE id = ?", question["change_id"])
    if change is not None:
        events.publish(store, project, "change", summary(change))


events.AFTER_PUBLISH.append(decision_moves_gate)

routes = [
    Route("/api/projects/{key}/changes", guarded(list_changes)),
    Route("/api/projects/{key}/changes/{id}", guarded(get_change)),
    Route("/api/projects/{key}/changes/{id}/gate", guarded(get_gate)),
    Route("/api/projects/{key}/changes/{id}/failing-tests", guarded(get_failing_tests)),
    Route("/api/projects/{key}/changes/{id}/cases", guarded(get_cases)),
]
