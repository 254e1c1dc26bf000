"""Pipeline input: `POST P/reports` with the pipeline token (`Authorization: Bearer mwt_…`).

This part keeps what the runs need: a report naming a branch or a pull request makes or updates a
change; each result naming cases is recorded on the slots of the project's open runs that accept that
commit (M-PLAN-5). The change's gate, failing tests and the event stream come with the changes part.
"""

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from common import S, error, json_body, keyed, refuse
from store import hash_secret

PIPELINE_OUTCOMES = ("pass", "fail", "error", "skip", "blocked")


def pipeline_project(request: Request) -> str:
    """The project the bearer token is good for, which must be the one in the path; 401 otherwise."""
    auth = request.headers.get("authorization", "")
    token = auth[7:] if auth.startswith("Bearer ") else ""
    row = S.store.one("SELECT * FROM pipeline_tokens WHERE token_hash = ?", hash_secret(token)) if token else None
    if row is None or row["project"] != request.path_params["key"]:
        raise refuse(401, "not_signed_in", "A report needs the project's pipeline token.")
    return row["project"]


async def report(request: Request):
    key = pipeline_project(request)
    data = await json_body(request)
    commit = data.get("commit")
    if not isinstance(commit, str) or not commit:
        raise refuse(422, "invalid", "A report names its commit.", fields={"commit": "required"})
    results = data.get("results") or []
    if not isinstance(results, list):
        raise refuse(422, "invalid", "results is a list.", fields={"results": "not_list"})
    store = S.store
    now = store.stamp()
    branch, pull_request = data.get("branch"), data.get("pull_request")
    change_id = None
    if branch or pull_request:
        existing = store.one(
            "SELECT * FROM changes WHERE project = ? AND (branch = ? OR (pull_request IS NOT NULL AND pull_request = ?))",
            key, branch, pull_request)
        state = data.get("state") if data.get("state") in ("open", "merged", "closed") else "open"
        if existing is None:
            change_id = store.new_id("ch")
            store.run("INSERT INTO changes VALUES (?,?,?,?,?,?,?,?,?,?)",
                      change_id, key, branch, pull_request, data.get("title") or branch or f"#{pull_request}", state,
                      commit, data.get("base") or "", now, store.seq())
        else:
            change_id = existing["id"]
            store.run("UPDATE changes SET head = ?, base = ?, state = ?, updated_at = ?, seq = ? WHERE id = ?",
                      commit, data.get("base") or existing["base"], state, now, store.seq(), change_id)
    store.run("INSERT INTO reports (project, change_id, commit_sha, job, body, at) VALUES (?,?,?,?,?,?)",
              key, change_id, commit, str(data.get("job") or ""), (await request.body()).decode(), now)
    # Results go to the slots of open runs that accept this commit, and no other run.
    runs = store.all("SELECT id FROM runs WHERE project = ? AND state = 'open' AND accepts_commit = ?", key, commit)
    for item in results:
        outcome = item.get("outcome") if isinstance(item, dict) else None
        if outcome not in PIPELINE_OUTCOMES:
            continue
        numbers = [int(c[2:]) for c in item.get("cases", []) if isinstance(c, str) and c.upper().startswith("C-")
                   and c[2:].isdigit()]
        for run in runs:
            for number in numbers:
                slot = store.one(
                    "SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id WHERE s.run_id = ? AND c.number = ?",
                    run["id"], number)
                if slot is not None:
                    store.run("INSERT INTO results VALUES (?,?,?,?,NULL,NULL,'u_0',?,'pipeline',?,?)",
                              store.new_id("res"), store.seq(), slot["id"], outcome, now, commit, item.get("message"))
    if change_id is not None:
        store.event(key, "change", {"id": change_id, "head": commit})
    for run in runs:
        store.event(key, "run", {"id": run["id"]})
    return JSONResponse({"change": change_id}, status_code=202)


routes = [
    Route("/api/projects/{key}/reports", keyed(report), methods=["POST"]),
]
