"""Proposals: a new case or an edit, and where each ended (`adopted`, `waiting`, `overlap`), or 422
`invalid` with a code per field.

Rules kept here:
- lengths are counted in UTF-16 units, as the app counts them: title at most 300, reason at most 500;
  preconditions, step text and the number of steps have no limit (M-EDIT-3..5);
- whitespace is Unicode White_Space (NBSP included). Refused, as the app warns (O-16, M-EDIT-6): a title
  that is empty or only whitespace, or has leading or trailing whitespace, a line break or a tab; a step
  action that is empty or only whitespace; an expected result, preconditions or reason that is
  whitespace only but not empty; a reason with leading or trailing whitespace;
- a new case without a folder goes to Unsorted (M-EDIT-1);
- an edit names the `base_version` it was opened at (M-EDIT-7). When the case moved on since, the
  fields this edit changes are compared with the fields changed since: any in common → `overlap` with
  those fields and the other proposal, and a question of kind `overlap`; none → the edit is applied on
  top of the current version (so what is saved may differ from what was typed, M-SAVE-3);
- in a folder whose policy asks for acceptance, the proposal waits in the Queue as a `proposal`
  question (M-SAVE-2); otherwise it is adopted and makes a new version (M-SAVE-1);
- writes are keyed: the same Idempotency-Key and body → the stored reply, so a Retry after a lost reply
  holds one proposal (M-DRAFT-5, M-NET-3).
"""

import json

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from common import S, json_body, keyed, project_access, refuse
from events import publish
from routes_cases import case_row, unsorted_id

TITLE_LIMIT = 300
REASON_LIMIT = 500
WHITE_SPACE = set(
    "\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
LINE_BREAKS = set("\n\u000b\u000c\r\u0085\u2028\u2029")
FIELDS = ("title", "preconditions", "steps")

SENTENCES = {
    ("title", "empty"): "The title is empty.",
    ("title", "too_long"): f"The title is longer than {TITLE_LIMIT} UTF-16 units.",
    ("title", "line_break"): "The title has a line break.",
    ("title", "tab"): "The title has a tab.",
    ("title", "leading_whitespace"): "The title starts with whitespace.",
    ("title", "trailing_whitespace"): "The title ends with whitespace.",
    ("preconditions", "whitespace_only"): "The preconditions are only whitespace.",
    ("reason", "too_long"): f"The reason is longer than {REASON_LIMIT} UTF-16 units.",
    ("reason", "whitespace_only"): "The reason is only whitespace.",
    ("reason", "leading_whitespace"): "The reason starts with whitespace.",
    ("reason", "trailing_whitespace"): "The reason ends with whitespace.",
}


def units(text: str) -> int:
    """The length in UTF-16 code units (an emoji outside the BMP counts 2)."""
    return len(text.encode("utf-16-le")) // 2


def only_space(text: str) -> bool:
    return all(ch in WHITE_SPACE for ch in text)


def title_problem(title: str) -> str | None:
    if only_space(title):
        return "empty"
    if units(title) > TITLE_LIMIT:
        return "too_long"
    if any(ch in LINE_BREAKS for ch in title):
        return "line_break"
    if "\t" in title:
        return "tab"
    if title[0] in WHITE_SPACE:
        return "leading_whitespace"
    if title[-1] in WHITE_SPACE:
        return "trailing_whitespace"
    return None


def reason_problem(reason: str) -> str | None:
    if reason == "":
        return None
    if only_space(reason):
        return "whitespace_only"
    if units(reason) > REASON_LIMIT:
        return "too_long"
    if reason[0] in WHITE_SPACE:
        return "leading_whitespace"
    if reason[-1] in WHITE_SPACE:
        return "trailing_whitespace"
    return None


def checked(document, reason) -> tuple[dict, str | None]:
    """The document as stored (an empty expected result is `null`), or 422 naming every bad field."""
    fields: dict[str, str] = {}
    sentences: list[str] = []

    def bad(field: str, code: str, sentence: str | None = None):
        fields[field] = code
        sentences.append(sentence or SENTENCES.get((field, code), f"{field} is {code.replace('_', ' ')}."))

    if not isinstance(document, dict):
        raise refuse(422, "invalid", "The proposal needs a document.", fields={"document": "required"})
    title = document.get("title")
    if not isinstance(title, str):
        bad("title", "empty")
    elif (problem := title_problem(title)) is not None:
        bad("title", problem)
    preconditions = document.get("preconditions") or ""
    if not isinstance(preconditions, str):
        bad("preconditions", "not_text", "The preconditions are text.")
        preconditions = ""
    elif preconditions and only_space(preconditions):
        bad("preconditions", "whitespace_only")
    steps = document.get("steps") if document.get("steps") is not None else []
    clean_steps = []
    if not isinstance(steps, list):
        bad("steps", "not_a_list", "The steps are a list.")
        steps = []
    for index, step in enumerate(steps):
        if not isinstance(step, dict):
            bad(f"steps.{index}", "not_a_step", f"Step {index + 1} is not an action with an expected result.")
            continue
        action, expected = step.get("action"), step.get("expected")
        if not isinstance(action, str) or only_space(action):
            bad(f"steps.{index}.action", "empty", f"Step {index + 1} has no action.")
        if expected is not None and not isinstance(expected, str):
            bad(f"steps.{index}.expected", "not_text", f"The expected result of step {index + 1} is text.")
        elif expected and only_space(expected):
            bad(
                f"steps.{index}.expected",
                "whitespace_only",
                f"The expected result of step {index + 1} is only whitespace.",
            )
        clean_steps.append({"action": action, "expected": expected if expected else None})
    if reason is not None:
        if not isinstance(reason, str):
            bad("reason", "not_text", "The reason is text.")
        elif (problem := reason_problem(reason)) is not None:
            bad("reason", problem)
    if fields:
        raise refuse(422, "invalid", sentences[0], fields=fields)
    return {"title": title, "preconditions": preconditions, "steps": clean_steps}, (reason or None)


def stored(case_id: str, version: int) -> dict:
    v = S.store.one("SELECT * FROM case_versions WHERE case_id = ? AND version = ?", case_id, version)
    return {"title": v["title"], "preconditions": v["preconditions"], "steps": json.loads(v["steps"])}


def changed(before: dict, after: dict) -> list[str]:
    return [f for f in FIELDS if before[f] != after[f]]


def needs_acceptance(folder_id: str) -> bool:
    folder = folder_id
    while folder:
        if S.store.one("SELECT 1 FROM folder_policies WHERE folder_id = ? AND needs_acceptance = 1", folder):
            return True
        row = S.store.one("SELECT parent_id FROM folders WHERE id = ?", folder)
        folder = row["parent_id"] if row else None
    return False


def ask(key: str, kind: str, title: str, evidence: dict, answers: list, proposal_id: str) -> str:
    store = S.store
    qid = store.new_id("q")
    store.run(
        "INSERT INTO questions VALUES (?,?,?,?, 'open', ?, ?, ?, 0, NULL, NULL, ?)",
        qid,
        key,
        kind,
        title,
        store.clock.stamp(),
        json.dumps(evidence),
        json.dumps(answers),
        proposal_id,
    )
    return qid


def answer(key: str, label: str, sentence: str, reason: bool = False) -> dict:
    return {"key": key, "label": label, "sentence": sentence, "reason_required": reason, "asks_tracker": False}


def save_version(case_id: str, version: int, document: dict, author: str, reason: str | None) -> None:
    S.store.run(
        "INSERT INTO case_versions VALUES (?,?,?,?,?,?,?,?)",
        case_id,
        version,
        document["title"],
        document["preconditions"],
        json.dumps(document["steps"]),
        author,
        S.store.clock.stamp(),
        reason,
    )


async def propose(request: Request):
    user, key = project_access(request, "produce")
    data = await json_body(request)
    op = data.get("op")
    if op not in ("create_case", "edit_case"):
        raise refuse(422, "invalid", "op is create_case or edit_case.", fields={"op": "unknown"})
    store = S.store
    if op == "create_case":
        folder_id = data.get("folder_id")
        if folder_id is None:
            folder_id = unsorted_id(key)
        elif not store.one("SELECT 1 FROM folders WHERE id = ? AND project = ?", folder_id, key):
            raise refuse(422, "invalid", "There is no such folder.", fields={"folder_id": "unknown"})
        document, reason = checked(data.get("document"), data.get("reason"))
        pid = store.new_id("pr")
        if needs_acceptance(folder_id):
            store.run(
                "INSERT INTO proposals VALUES (?,?,?, 'waiting', NULL, NULL, ?, ?, NULL, ?, ?)",
                pid,
                key,
                op,
                json.dumps({**document, "folder_id": folder_id}),
                reason,
                user["id"],
                store.clock.stamp(),
            )
            qid = ask(
                key,
                "proposal",
                f"New case “{document['title']}”",
                {"proposal": {"edit_count": 1, "edits": [{"op": "create_case", "document": document}]}},
                [
                    answer("adopt", "Adopt", "Applies every edit of the proposal."),
                    answer("reject", "Reject", "Discards the proposal; nothing changes.", reason=True),
                ],
                pid,
            )
            store.run("UPDATE proposals SET question_id = ? WHERE id = ?", qid, pid)
            revision = publish(store, key, "question", {"id": qid, "kind": "proposal"})
            return JSONResponse(
                {"proposal": {"id": pid, "state": "waiting", "question_id": qid}, "revision": revision}, status_code=201
            )
        number = (store.one("SELECT MAX(number) AS n FROM cases WHERE project = ?", key)["n"] or 0) + 1
        cid = store.new_id("c")
        store.run("INSERT INTO cases VALUES (?,?,?,?,1,0)", cid, key, number, folder_id)
        save_version(cid, 1, document, user["id"], reason)
        store.run(
            "INSERT INTO proposals VALUES (?,?,?, 'adopted', ?, NULL, ?, ?, NULL, ?, ?)",
            pid,
            key,
            op,
            cid,
            json.dumps(document),
            reason,
            user["id"],
            store.clock.stamp(),
        )
        store.run("INSERT INTO proposal_versions VALUES (?,?,1,?)", pid, cid, json.dumps(list(FIELDS)))
        revision = publish(store, key, "case", {"id": cid, "number": f"C-{number}", "version": 1})
        return JSONResponse(
            {
                "proposal": {"id": pid, "state": "adopted", "case_id": cid, "number": f"C-{number}", "version": 1},
                "revision": revision,
            },
            status_code=201,
        )

    ref = data.get("case_id")
    if not isinstance(ref, str):
        raise refuse(422, "invalid", "Name the case to edit.", fields={"case_id": "required"})
    try:
        case = case_row(key, ref)
    except Exception:
        raise refuse(
            422, "invalid", f"There is no case “{ref}” in this project.", fields={"case_id": "unknown"}
        ) from None
    base = data.get("base_version")
    if not isinstance(base, int) or isinstance(base, bool) or not 1 <= base <= case["version"]:
        raise refuse(
            422,
            "invalid",
            f"The base version is a version of C-{case['number']}, from 1 to {case['version']}.",
            fields={"base_version": "unknown"},
        )
    document, reason = checked(data.get("document"), data.get("reason"))
    pid = store.new_id("pr")
    before = stored(case["id"], base)
    mine = changed(before, document)
    current = stored(case["id"], case["version"])
    theirs = changed(before, current)
    common = [f for f in FIELDS if f in mine and f in theirs]

    def insert(state: str, question_id: str | None = None):
        store.run(
            "INSERT INTO proposals VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            pid,
            key,
            op,
            state,
            case["id"],
            base,
            json.dumps(document),
            reason,
            question_id,
            user["id"],
            store.clock.stamp(),
        )

    if common:
        other = store.one(
            "SELECT proposal_id, fields FROM proposal_versions WHERE case_id = ? AND version > ? ORDER BY version DESC",
            case["id"],
            base,
        )
        with_id = other["proposal_id"] if other else None
        insert("overlap")
        qid = ask(
            key,
            "overlap",
            f"Two edits of C-{case['number']} overlap",
            {
                "overlap": {
                    "case": {"id": case["id"], "number": f"C-{case['number']}"},
                    "fields": common,
                    "proposals": [pid, with_id],
                }
            },
            [answer("resolve", "Resolve", "Keeps one edit and withdraws the other.")],
            pid,
        )
        store.run("UPDATE proposals SET question_id = ? WHERE id = ?", qid, pid)
        revision = publish(store, key, "question", {"id": qid, "kind": "overlap"})
        return JSONResponse(
            {
                "proposal": {
                    "id": pid,
                    "state": "overlap",
                    "question_id": qid,
                    "case_id": case["id"],
                    "overlap": {"fields": common, "with": with_id},
                },
                "revision": revision,
            },
            status_code=201,
        )
    merged = {f: (document[f] if f in mine else current[f]) for f in FIELDS}
    if needs_acceptance(case["folder_id"]):
        insert("waiting")
        qid = ask(
            key,
            "proposal",
            f"Edit of C-{case['number']}",
            {
                "proposal": {
                    "edit_count": 1,
                    "edits": [
                        {
                            "op": "edit_case",
                            "case": f"C-{case['number']}",
                            "base_version": base,
                            "changes": {f: [before[f], document[f]] for f in mine},
                        }
                    ],
                }
            },
            [
                answer("adopt", "Adopt", "Applies every edit of the proposal."),
                answer("reject", "Reject", "Discards the proposal; nothing changes.", reason=True),
            ],
            pid,
        )
        store.run("UPDATE proposals SET question_id = ? WHERE id = ?", qid, pid)
        revision = publish(store, key, "question", {"id": qid, "kind": "proposal"})
        return JSONResponse(
            {
                "proposal": {"id": pid, "state": "waiting", "question_id": qid, "case_id": case["id"]},
                "revision": revision,
            },
            status_code=201,
        )
    version = case["version"] + 1
    save_version(case["id"], version, merged, user["id"], reason)
    store.run("UPDATE cases SET version = ? WHERE id = ?", version, case["id"])
    insert("adopted")
    store.run("INSERT INTO proposal_versions VALUES (?,?,?,?)", pid, case["id"], version, json.dumps(mine))
    revision = publish(store, key, "case", {"id": case["id"], "number": f"C-{case['number']}", "version": version})
    return JSONResponse(
        {
            "proposal": {
                "id": pid,
                "state": "adopted",
                "case_id": case["id"],
                "number": f"C-{case['number']}",
                "version": version,
            },
            "revision": revision,
        },
        status_code=201,
    )


routes = [
    Route("/api/projects/{key}/proposals", keyed(propose), methods=["POST"]),
]
