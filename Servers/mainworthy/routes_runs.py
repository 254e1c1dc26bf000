"""Runs, slots, results and planning."""

import json
import re

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

import events
from common import S, guarded, json_body, keyed, page, paging, person, project_access, refuse

OUTCOMES = ("pass", "fail", "blocked", "skip")


def run_row(key: str, rid: str):
    row = S.store.one("SELECT * FROM runs WHERE id = ? AND project = ?", rid, key)
    if row is None:
        raise refuse(404, "not_found", "There is no such run in this project.")
    return row


def current_result(slot_id: str):
    return S.store.one("SELECT * FROM results WHERE slot_id = ? ORDER BY seq DESC LIMIT 1", slot_id)


def result_json(row) -> dict | None:
    if row is None:
        return None
    return {
        "id": row["id"],
        "outcome": row["outcome"],
        "note": row["note"],
        "failed_step": row["failed_step"],
        "by": person(row["by_id"]),
        "at": row["at"],
        "source": row["source"],
        "commit": row["commit_sha"],
    }


def pinned(case_id: str, version: int):
    return S.store.one(
        "SELECT c.id, c.number, v.* FROM cases c JOIN case_versions v ON v.case_id = c.id "
        "WHERE c.id = ? AND v.version = ?",
        case_id,
        version,
    )


def slot_json(slot) -> dict:
    case = pinned(slot["case_id"], slot["case_version"])
    return {
        "id": slot["id"],
        "position": slot["position"],
        "case": {
            "id": case["id"],
            "number": f"C-{case['number']}",
            "title": case["title"],
            "version": slot["case_version"],
        },
        "result": result_json(current_result(slot["id"])),
    }


def verdict(slots: list[dict], state: str) -> dict:
    outcomes = [s["result"]["outcome"] if s["result"] else None for s in slots]
    fails = outcomes.count("fail") + outcomes.count("error")
    blocked, empty = outcomes.count("blocked"), outcomes.count(None)
    parts = []
    if fails:
        parts.append(f"{fails} failure" + ("" if fails == 1 else "s"))
    if blocked:
        parts.append(f"{blocked} blocked")
    if empty:
        parts.append(f"{empty} slot{'' if empty == 1 else 's'} without a result")
    value = "failing" if fails else "blocked" if blocked else "pending" if empty else "passing"
    sentence = "; ".join(parts) + "." if parts else "Every slot has a result and none failed."
    if state == "closed":
        sentence += " The run is closed."
    return {"value": value, "sentence": sentence[0].upper() + sentence[1:]}


def run_json(run) -> dict:
    slots = [slot_json(s) for s in S.store.all("SELECT * FROM slots WHERE run_id = ? ORDER BY position", run["id"])]
    return {
        "id": run["id"],
        "name": run["name"],
        "state": run["state"],
        "verdict": verdict(slots, run["state"]),
        "accepts": {"manual": True, "commit": run["accepts_commit"]},
        "created_at": run["created_at"],
        "by": person(run["created_by"]),
        "slots": slots,
        "revision": events.revision(S.store, run["project"]),
    }


async def runs(request: Request):
    _, key = project_access(request)
    offset, limit = paging(request)
    rows = S.store.all("SELECT * FROM runs WHERE project = ? ORDER BY seq DESC", key)
    chunk, cursor = page(rows, offset, limit)
    items = []
    for run in chunk:
        full = run_json(run)
        items.append(
            {
                "id": run["id"],
                "name": run["name"],
                "state": run["state"],
                "verdict": full["verdict"],
                "slot_count": len(full["slots"]),
                "created_at": run["created_at"],
            }
        )
    return JSONResponse({"items": items, "next_cursor": cursor, "revision": events.revision(S.store, key)})


async def run(request: Request):
    _, key = project_access(request)
    return JSONResponse(run_json(run_row(key, request.path_params["id"])))


def slot_row(run, sid: str):
    row = S.store.one("SELECT * FROM slots WHERE id = ? AND run_id = ?", sid, run["id"])
    if row is None:
        raise refuse(404, "not_found", "There is no such slot in this run.")
    return row


async def slot(request: Request):
    """M-RUN-4: the case as pinned when the run was planned, and the slot's results, newest first."""
    _, key = project_access(request)
    slot = slot_row(run_row(key, request.path_params["id"]), request.path_params["sid"])
    case = pinned(slot["case_id"], slot["case_version"])
    results = S.store.all("SELECT * FROM results WHERE slot_id = ? ORDER BY seq DESC", slot["id"])
    return JSONResponse(
        {
            "slot": slot_json(slot),
            "case": {
                "id": case["id"],
                "number": f"C-{case['number']}",
                "version": slot["case_version"],
                "title": case["title"],
                "preconditions": case["preconditions"],
                "steps": json.loads(case["steps"]),
            },
            "results": [result_json(r) for r in results],
        }
    )


async def record(request: Request):
    """M-RUN-6/8/9/11, M-CAP-2: a new current result; the caller's previous one comes back with it."""
    user, key = project_access(request, "produce")
    run = run_row(key, request.path_params["id"])
    slot = slot_row(run, request.path_params["sid"])
    data = await json_body(request)
    if run["state"] != "open":
        raise refuse(409, "run_closed")
    outcome = data.get("outcome")
    if outcome not in OUTCOMES:
        raise refuse(422, "invalid", "The outcome is pass, fail, blocked or skip.", fields={"outcome": "unknown"})
    step = data.get("failed_step")
    if step is not None:
        if outcome != "fail":
            raise refuse(
                422, "invalid", "Only a failure names a failed step.", fields={"failed_step": "only_with_fail"}
            )
        steps = json.loads(pinned(slot["case_id"], slot["case_version"])["steps"])
        if not isinstance(step, int) or isinstance(step, bool) or not 1 <= step <= len(steps):
            raise refuse(
                422,
                "invalid",
                f"The failed step is a number from 1 to {len(steps)}.",
                fields={"failed_step": "out_of_range"},
            )
    note = data.get("note")
    if note is not None and not isinstance(note, str):
        raise refuse(422, "invalid", "The note is text.", fields={"note": "not_text"})
    note = note if note else None
    store = S.store
    previous = store.one(
        "SELECT * FROM results WHERE slot_id = ? AND by_id = ? ORDER BY seq DESC LIMIT 1", slot["id"], user["id"]
    )
    rid = store.new_id("res")
    store.run(
        "INSERT INTO results VALUES (?,?,?,?,?,?,?,?,'manual',NULL,NULL)",
        rid,
        store.seq(),
        slot["id"],
        outcome,
        note,
        step,
        user["id"],
        store.clock.stamp(),
    )
    revision = events.publish(store, key, "run", {"id": run["id"], "slot": slot["id"], "result": rid})
    return JSONResponse(
        {
            "result": result_json(store.one("SELECT * FROM results WHERE id = ?", rid)),
            "your_previous": None
            if previous is None
            else {"outcome": previous["outcome"], "note": previous["note"], "failed_step": previous["failed_step"]},
            "revision": revision,
        },
        status_code=201,
    )


CASE_NUMBER = re.compile(r"^[Cc]-(\d+)$")


def folder_subtree(key: str, folder_id: str) -> list[str]:
    found, frontier = [folder_id], [folder_id]
    while frontier:
        children = [
            r["id"]
            for r in S.store.all(
                f"SELECT id FROM folders WHERE project = ? AND parent_id IN ({','.join('?' * len(frontier))})",
                key,
                *frontier,
            )
        ]
        found += children
        frontier = children
    return found


def search_matches(case_row, words: list[str]) -> bool:
    """Words match the title, preconditions and step text, ignoring case; `C-12` matches that number only."""
    text = " ".join(
        [case_row["title"], case_row["preconditions"]]
        + [f"{s.get('action') or ''} {s.get('expected') or ''}" for s in json.loads(case_row["steps"])]
    ).lower()
    for word in words:
        number = CASE_NUMBER.match(word)
        if number:
            if case_row["number"] != int(number.group(1)):
                return False
        elif word.lower() not in text:
            return False
    return True


def select_cases(key: str, selection) -> tuple[list, str]:
    """The current cases a selection names, in number order, and the sentence when there are none."""
    if not isinstance(selection, dict):
        raise refuse(422, "invalid", "Choose all cases, a folder, a tag or a search.", fields={"selection": "required"})
    base = (
        "SELECT c.*, v.title, v.preconditions, v.steps FROM cases c JOIN case_versions v "
        "ON v.case_id = c.id AND v.version = c.version WHERE c.project = ? AND c.archived = 0"
    )
    kind = selection.get("kind")
    if kind == "all":
        return S.store.all(base + " ORDER BY c.number", key), "The project has no cases."
    if kind == "folder":
        folder = S.store.one("SELECT * FROM folders WHERE id = ? AND project = ?", selection.get("folder_id"), key)
        if folder is None:
            raise refuse(422, "invalid", "There is no such folder.", fields={"selection.folder_id": "unknown"})
        ids = folder_subtree(key, folder["id"])
        rows = S.store.all(base + f" AND c.folder_id IN ({','.join('?' * len(ids))}) ORDER BY c.number", key, *ids)
        return rows, f"The folder “{folder['name']}” has no cases."
    if kind == "tag":
        tag = selection.get("tag")
        rows = S.store.all(
            base + " AND c.id IN (SELECT case_id FROM case_tags WHERE tag = ?) ORDER BY c.number", key, tag
        )
        return rows, f"The tag “{tag}” has no cases."
    if kind == "search":
        text = selection.get("text")
        if not isinstance(text, str) or not text.strip():
            raise refuse(422, "invalid", "Type what to search for.", fields={"selection.text": "empty"})
        words = text.split()
        rows = [r for r in S.store.all(base + " ORDER BY c.number", key) if search_matches(r, words)]
        return rows, f"No case matches “{text.strip()}”."
    raise refuse(422, "invalid", "The selection is all, folder, tag or search.", fields={"selection.kind": "unknown"})


async def plan(request: Request):
    """M-PLAN-1/4/5, M-CAP-3: a run of one slot per selected case, each pinned at its current version."""
    user, key = project_access(request, "plan")
    data = await json_body(request)
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise refuse(422, "invalid", "Give the run a name.", fields={"name": "empty"})
    commit = data.get("accepts_commit")
    if commit is not None and (not isinstance(commit, str) or not re.fullmatch(r"[0-9a-f]{7,40}", commit)):
        raise refuse(422, "invalid", "The commit is 7 to 40 hexadecimal digits.", fields={"accepts_commit": "invalid"})
    cases, empty_sentence = select_cases(key, data.get("selection"))
    if not cases:
        raise refuse(422, "empty_selection", empty_sentence)
    store = S.store
    rid = store.new_id("r")
    store.run(
        "INSERT INTO runs VALUES (?,?,?, 'open', ?, ?, ?, ?)",
        rid,
        key,
        name.strip(),
        commit,
        user["id"],
        store.clock.stamp(),
        store.seq(),
    )
    for position, case in enumerate(cases, start=1):
        store.run("INSERT INTO slots VALUES (?,?,?,?,?)", store.new_id("s"), rid, position, case["id"], case["version"])
    revision = events.publish(store, key, "run", {"id": rid, "state": "open"})
    response = JSONResponse(
        {"run": {"id": rid, "name": name.strip()}, "slot_count": len(cases), "revision": revision}, status_code=201
    )
    response.headers["Location"] = f"/api/projects/{key}/runs/{rid}"
    return response


routes = [
    Route("/api/projects/{key}/runs", guarded(runs), methods=["GET"]),
    Route("/api/projects/{key}/runs", keyed(plan), methods=["POST"]),
    Route("/api/projects/{key}/runs/{id}", guarded(run)),
    Route("/api/projects/{key}/runs/{id}/slots/{sid}", guarded(slot)),
    Route("/api/projects/{key}/runs/{id}/slots/{sid}/results", keyed(record), methods=["POST"]),
]
