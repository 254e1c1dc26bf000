"""The queue, a question's page, answers, withdrawals and the Decided list."""

import json

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

import events
from common import S, guarded, json_body, keyed, page, paging, person, project_access, refuse

KINDS = ("failure", "proposal", "review", "sign_off", "link", "overlap")


def question_row(key: str, qid: str):
    row = S.store.one("SELECT * FROM questions WHERE id = ? AND project = ?", qid, key)
    if row is None:
        raise refuse(404, "not_found", "There is no such question in this project.")
    return row


def current_decision(qid: str):
    """The decision standing on a question: its last ledger entry, when that entry is a decision."""
    last = S.store.one("SELECT * FROM ledger WHERE question_id = ? ORDER BY seq DESC LIMIT 1", qid)
    return last if last is not None and last["type"] == "decision" else None


def answer_of(question, key: str | None):
    for answer in json.loads(question["answers"]):
        if answer["key"] == key:
            return answer
    return None


def decision_json(row, question=None) -> dict:
    reply = {
        "id": row["id"],
        "question_id": row["question_id"],
        "answer": row["answer"],
        "by": person(row["by_id"]),
        "at": row["at"],
        "reason": row["reason"],
        "tracker": row["tracker"],
    }
    if question is not None:
        answer = answer_of(question, row["answer"])
        reply["answer_label"] = answer["label"] if answer else row["answer"]
    return reply


def ledger_json(row) -> dict:
    entry = {"id": row["id"], "type": row["type"], "by": person(row["by_id"]), "at": row["at"], "reason": row["reason"]}
    if row["type"] == "decision":
        entry.update(answer=row["answer"], tracker=row["tracker"])
    else:
        entry["withdraws"] = row["withdraws"]
    return entry


def question_json(row) -> dict:
    current = current_decision(row["id"])
    ledger = S.store.all("SELECT * FROM ledger WHERE question_id = ? ORDER BY seq", row["id"])
    number = row["id"].split("_")[1]
    return {
        "id": row["id"],
        "kind": row["kind"],
        "state": row["state"],
        "title": row["title"],
        "waiting_since": row["waiting_since"],
        "web_url": f"{S.base_url}/{row['project']}/q/{number}",
        "evidence": json.loads(row["evidence"]),
        "answers": json.loads(row["answers"]),
        "withdraw_reason_required": bool(row["withdraw_reason_required"]),
        "decision": decision_json(current, row) if current else None,
        "ledger": [ledger_json(e) for e in ledger],
    }


def blank(text) -> bool:
    return not isinstance(text, str) or not text.strip()


async def queue(request: Request):
    """M-QUEUE-4/5: open questions, longest waiting first, one kind with ?kind=; the summary always
    counts the whole open queue."""
    _, key = project_access(request)
    kind = request.query_params.get("kind")
    if kind is not None and kind not in KINDS:
        raise refuse(422, "invalid", f"kind must be one of {', '.join(KINDS)}.", fields={"kind": "unknown"})
    offset, limit = paging(request)
    rows = S.store.all("SELECT * FROM questions WHERE project = ? AND state = 'open' ORDER BY waiting_since, id", key)
    failures = sum(1 for r in rows if r["kind"] == "failure")
    listed = [r for r in rows if kind is None or r["kind"] == kind]
    chunk, cursor = page(listed, offset, limit)
    return JSONResponse(
        {
            "summary": {"failures": failures, "can_wait": len(rows) - failures},
            "revision": events.revision(S.store, key),
            "next_cursor": cursor,
            "items": [
                {"id": r["id"], "kind": r["kind"], "title": r["title"], "waiting_since": r["waiting_since"]}
                for r in chunk
            ],
        }
    )


async def question(request: Request):
    _, key = project_access(request)
    return JSONResponse(question_json(question_row(key, request.path_params["id"])))


def set_run_state(question, state: str) -> None:
    if question["kind"] == "sign_off" and question["run_id"]:
        S.store.run("UPDATE runs SET state = ? WHERE id = ?", state, question["run_id"])


async def decide(request: Request):
    """M-QUEUE-9/10/12, M-CAP-4: records an answer when `expected_decision_id` is the decision standing."""
    user, key = project_access(request, "decide")
    q = question_row(key, request.path_params["id"])
    data = await json_body(request)
    answer = answer_of(q, data.get("answer"))
    if answer is None:
        raise refuse(422, "invalid", "This question has no such answer.", fields={"answer": "unknown"})
    current = current_decision(q["id"])
    expected = data.get("expected_decision_id")
    if (current["id"] if current else None) != expected:
        raise refuse(409, "decision_changed", current=decision_json(current, q) if current else None)
    reason = data.get("reason")
    if answer["reason_required"] and blank(reason):
        raise refuse(422, "reason_required", f"“{answer['label']}” needs a reason.")
    reason = None if blank(reason) else reason
    tracker = data.get("tracker") if answer["asks_tracker"] and not blank(data.get("tracker")) else None
    store = S.store
    did = store.new_id("d")
    store.run(
        "INSERT INTO ledger VALUES (?,?,?,?, 'decision', ?, ?, ?, NULL, ?, ?)",
        did,
        store.seq(),
        key,
        q["id"],
        answer["key"],
        reason,
        tracker,
        user["id"],
        store.clock.stamp(),
    )
    store.run("UPDATE questions SET state = 'decided' WHERE id = ?", q["id"])
    set_run_state(q, "closed")
    row = store.one("SELECT * FROM ledger WHERE id = ?", did)
    revision = events.publish(store, key, "decision", {"id": did, "question_id": q["id"], "state": "decided"})
    return JSONResponse(
        {
            "decision": decision_json(row, q),
            "recorded": f"{answer['label']} recorded for {q['title']}.",
            "revision": revision,
        },
        status_code=201,
    )


async def withdraw(request: Request):
    """M-UNDO-1/2/3/5/8: withdraws the decision named in the path, if it is still the one standing."""
    user, key = project_access(request, "decide")
    store = S.store
    decision = store.one(
        "SELECT * FROM ledger WHERE id = ? AND project = ? AND type = 'decision'", request.path_params["id"], key
    )
    if decision is None:
        raise refuse(404, "not_found", "There is no such decision in this project.")
    q = question_row(key, decision["question_id"])
    current = current_decision(q["id"])
    if current is None or current["id"] != decision["id"]:
        raise refuse(409, "decision_changed", current=decision_json(current, q) if current else None)
    data = await json_body(request)
    reason = data.get("reason")
    if q["withdraw_reason_required"] and blank(reason):
        raise refuse(422, "reason_required", "Withdrawing this decision needs a reason.")
    wid = store.new_id("d")
    store.run(
        "INSERT INTO ledger VALUES (?,?,?,?, 'withdrawal', NULL, ?, NULL, ?, ?, ?)",
        wid,
        store.seq(),
        key,
        q["id"],
        None if blank(reason) else reason,
        decision["id"],
        user["id"],
        store.clock.stamp(),
    )
    store.run("UPDATE questions SET state = 'open' WHERE id = ?", q["id"])
    set_run_state(q, "open")
    revision = events.publish(store, key, "decision", {"id": wid, "question_id": q["id"], "state": "open"})
    return JSONResponse(
        {
            "withdrawal": {
                "id": wid,
                "withdraws": decision["id"],
                "by": person(user["id"]),
                "at": store.clock.stamp(),
                "reason": None if blank(reason) else reason,
            },
            "question": {"id": q["id"], "state": "open"},
            "revision": revision,
        },
        status_code=201,
    )


async def decided(request: Request):
    """M-UNDO-4: the decisions standing now, newest first, with their answer and who made them."""
    _, key = project_access(request)
    offset, limit = paging(request)
    rows = S.store.all("SELECT * FROM questions WHERE project = ? AND state = 'decided'", key)
    standing = [(current_decision(q["id"]), q) for q in rows]
    standing = sorted([s for s in standing if s[0] is not None], key=lambda s: s[0]["seq"], reverse=True)
    chunk, cursor = page(standing, offset, limit)
    items = []
    for d, q in chunk:
        answer = answer_of(q, d["answer"])
        items.append(
            {
                "id": d["id"],
                "question": {"id": q["id"], "kind": q["kind"], "title": q["title"]},
                "answer": {"key": d["answer"], "label": answer["label"] if answer else d["answer"]},
                "by": person(d["by_id"]),
                "at": d["at"],
                "reason": d["reason"],
                "tracker": d["tracker"],
            }
        )
    return JSONResponse({"items": items, "next_cursor": cursor, "revision": events.revision(S.store, key)})


routes = [
    Route("/api/projects/{key}/queue", guarded(queue)),
    Route("/api/projects/{key}/questions/{id}", guarded(question)),
    Route("/api/projects/{key}/questions/{id}/decisions", keyed(decide), methods=["POST"]),
    Route("/api/projects/{key}/decisions/{id}/withdrawal", keyed(withdraw), methods=["POST"]),
    Route("/api/projects/{key}/decisions", guarded(decided)),
]
