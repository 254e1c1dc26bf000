"""The case library: browse, tags, folders, case lists (folder, tag, search with a scope), a case, its
versions and an old version.

Rules kept here:
- a folder's list holds its own cases only; its subfolders come from `GET P/folders/{id}` (M-CASE-2);
- lists page by cursor with `next_cursor` (M-CASE-3) and carry the project's `revision`;
- `worst` comes from each slot's current result on the case's current version: any fail → `fail`,
  else any error → `error`, else any blocked → `blocked`, else any pass → `pass`, else `null`; `skip`
  is ignored (M-CASE-4, O-13);
- a search's scope is `folder:<id>` (the folder and its subfolders at every depth), `tag:<name>` or
  `project`; words match title, preconditions and step text ignoring case, and `C-12` in any case is
  a whole-number match, so `C-1` does not find C-12 (M-FIND-1..4, O-15);
- an old version is the document as it was, with the current folder and tags (M-CASE-6).
"""

import json
import re

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

import events
import shapes
from common import S, guarded, page, paging, person, project_access, refuse
from routes_runs import folder_subtree, search_matches

RUNNABLE_BY = "Anyone who may produce evidence"
CASE_NUMBER = re.compile(r"^[Cc]-(\d+)$")
CURRENT = (
    "SELECT c.*, v.title, v.preconditions, v.steps FROM cases c JOIN case_versions v "
    "ON v.case_id = c.id AND v.version = c.version WHERE c.project = ? AND c.archived = 0"
)


def worst(case_id: str, version: int) -> str | None:
    outcomes = set()
    for slot in S.store.all("SELECT id FROM slots WHERE case_id = ? AND case_version = ?", case_id, version):
        row = S.store.one("SELECT outcome FROM results WHERE slot_id = ? ORDER BY seq DESC LIMIT 1", slot["id"])
        if row is not None:
            outcomes.add(row["outcome"])
    for mark in ("fail", "error", "blocked", "pass"):
        if mark in outcomes:
            return mark
    return None


def row_json(row) -> dict:
    return {
        "id": row["id"],
        "number": f"C-{row['number']}",
        "title": row["title"],
        "version": row["version"],
        "worst": worst(row["id"], row["version"]),
    }


def folder_row(key: str, fid: str):
    row = S.store.one("SELECT * FROM folders WHERE id = ? AND project = ?", fid, key)
    if row is None:
        raise refuse(404, "not_found", "There is no such folder in this project.")
    return row


def folder_brief(row) -> dict:
    brief = {"id": row["id"], "name": row["name"]}
    if row["system"]:
        brief["system"] = True
    return brief


def unsorted_id(key: str) -> str:
    return S.store.one("SELECT id FROM folders WHERE project = ? AND system = 1", key)["id"]


def tags_by_use(key: str) -> list[dict]:
    rows = S.store.all(
        "SELECT t.name, (SELECT COUNT(*) FROM case_tags ct JOIN cases c ON c.id = ct.case_id "
        "WHERE ct.tag = t.name AND c.project = t.project AND c.archived = 0) AS count "
        "FROM tags t WHERE t.project = ? ORDER BY count DESC, t.name",
        key,
    )
    return [{"name": r["name"], "count": r["count"]} for r in rows]


def case_row(key: str, ref: str):
    """A case by id (`c_12`), or, in the rich shape, by number (`C-12`); §2's `{id}` is the id only."""
    number = None if shapes.spec() else CASE_NUMBER.match(ref)
    if number:
        row = S.store.one("SELECT * FROM cases WHERE project = ? AND number = ?", key, int(number.group(1)))
    else:
        row = S.store.one("SELECT * FROM cases WHERE project = ? AND id = ?", key, ref)
    if row is None:
        raise refuse(404, "not_found", f"There is no case “{ref}” in this project.")
    return row


def document_json(key: str, case, version: int) -> dict:
    v = S.store.one("SELECT * FROM case_versions WHERE case_id = ? AND version = ?", case["id"], version)
    if v is None:
        raise refuse(404, "not_found", f"C-{case['number']} has no version {version}.")
    folder = S.store.one("SELECT * FROM folders WHERE id = ?", case["folder_id"])
    tags = [r["tag"] for r in S.store.all("SELECT tag FROM case_tags WHERE case_id = ? ORDER BY tag", case["id"])]
    return {
        "id": case["id"],
        "number": f"C-{case['number']}",
        "version": version,
        "current_version": case["version"],
        "title": v["title"],
        "preconditions": v["preconditions"],
        "steps": json.loads(v["steps"]),
        "runnable_by": RUNNABLE_BY,
        "folder": folder_brief(folder),
        "tags": tags,
        "archived": bool(case["archived"]),
        "web_url": f"{S.base_url}/{key}/cases/{case['number']}",
        "revision": events.revision(S.store, key),
    }


async def browse(request: Request):
    """M-CASE-1: the top folders (Unsorted first) and the tags by use."""
    _, key = project_access(request)
    folders = S.store.all(
        "SELECT * FROM folders WHERE project = ? AND parent_id IS NULL ORDER BY system DESC, position, name", key
    )
    total = S.store.one("SELECT COUNT(*) AS n FROM cases WHERE project = ? AND archived = 0", key)["n"]
    return JSONResponse(
        {
            "revision": events.revision(S.store, key),
            **({} if shapes.spec() else {"case_count": total}),
            "folders": [folder_brief(f) for f in folders],
            "tags": tags_by_use(key),
        }
    )


async def tags(request: Request):
    _, key = project_access(request)
    offset, limit = paging(request)
    chunk, cursor = page(tags_by_use(key), offset, limit)
    return JSONResponse({"items": chunk, "next_cursor": cursor, "revision": events.revision(S.store, key)})


async def folder(request: Request):
    _, key = project_access(request)
    row = folder_row(key, request.path_params["id"])
    path, cursor = [], row
    while cursor is not None:
        path.insert(0, {"id": cursor["id"], "name": cursor["name"]})
        cursor = S.store.one("SELECT * FROM folders WHERE id = ?", cursor["parent_id"]) if cursor["parent_id"] else None
    subfolders = S.store.all("SELECT * FROM folders WHERE parent_id = ? ORDER BY position, name", row["id"])
    return JSONResponse(
        {
            **folder_brief(row),
            "path": path,
            "subfolders": [folder_brief(f) for f in subfolders],
            **({} if shapes.spec() else {"revision": events.revision(S.store, key)}),
        }
    )


def search_rows(key: str, text: str, scope: str) -> list:
    if scope == "project":
        rows = S.store.all(CURRENT + " ORDER BY c.number", key)
    elif scope.startswith("folder:"):
        ids = folder_subtree(key, folder_row(key, scope[7:])["id"])
        rows = S.store.all(CURRENT + f" AND c.folder_id IN ({','.join('?' * len(ids))}) ORDER BY c.number", key, *ids)
    elif scope.startswith("tag:"):
        rows = S.store.all(
            CURRENT + " AND c.id IN (SELECT case_id FROM case_tags WHERE tag = ?) ORDER BY c.number", key, scope[4:]
        )
    else:
        raise refuse(422, "invalid", "scope is folder:<id>, tag:<name> or project.", fields={"scope": "unknown"})
    words = text.split()
    return [r for r in rows if search_matches(r, words)]


async def cases(request: Request):
    """`folder=` (its own cases), `tag=`, `q=` with `scope=`, or nothing (All cases)."""
    _, key = project_access(request)
    offset, limit = paging(request)
    params = request.query_params
    if "q" in params:
        text = params["q"]
        if not text.strip():
            raise refuse(422, "invalid", "Type what to search for.", fields={"q": "empty"})
        rows = search_rows(key, text, params.get("scope", "project"))
    elif "folder" in params:
        fid = folder_row(key, params["folder"])["id"]
        rows = S.store.all(CURRENT + " AND c.folder_id = ? ORDER BY c.number", key, fid)
    elif "tag" in params:
        rows = S.store.all(
            CURRENT + " AND c.id IN (SELECT case_id FROM case_tags WHERE tag = ?) ORDER BY c.number", key, params["tag"]
        )
    else:
        rows = S.store.all(CURRENT + " ORDER BY c.number", key)
    chunk, cursor = page(rows, offset, limit)
    return JSONResponse(
        {"items": [row_json(r) for r in chunk], "next_cursor": cursor, "revision": events.revision(S.store, key)}
    )


async def case(request: Request):
    _, key = project_access(request)
    row = case_row(key, request.path_params["id"])
    return JSONResponse(shapes.case_page(document_json(key, row, row["version"]), old=False))


async def versions(request: Request):
    """M-CASE-5: every version, newest first, with author, time and reason; paged by cursor like every list (§2)."""
    _, key = project_access(request)
    row = case_row(key, request.path_params["id"])
    offset, limit = paging(request)
    rows = S.store.all("SELECT * FROM case_versions WHERE case_id = ? ORDER BY version DESC", row["id"])
    chunk, cursor = page(rows, offset, limit)
    items = [
        {"version": v["version"], "author": person(v["author_id"]), "at": v["at"], "reason": v["reason"]} for v in chunk
    ]
    return JSONResponse({"items": items, "next_cursor": cursor, "revision": events.revision(S.store, key)})


async def version(request: Request):
    _, key = project_access(request)
    row = case_row(key, request.path_params["id"])
    raw = request.path_params["v"]
    if not raw.isdigit():
        raise refuse(404, "not_found", f"C-{row['number']} has no version {raw}.")
    return JSONResponse(shapes.case_page(document_json(key, row, int(raw)), old=True))


routes = [
    Route("/api/projects/{key}/browse", guarded(browse)),
    Route("/api/projects/{key}/tags", guarded(tags)),
    Route("/api/projects/{key}/folders/{id}", guarded(folder)),
    Route("/api/projects/{key}/cases", guarded(cases)),
    Route("/api/projects/{key}/cases/{id}", guarded(case)),
    Route("/api/projects/{key}/cases/{id}/versions", guarded(versions)),
    Route("/api/projects/{key}/cases/{id}/versions/{v}", guarded(version)),
]
