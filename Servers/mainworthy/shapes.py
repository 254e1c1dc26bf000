"""The two shapes the stand-in answers in, chosen with the fixture (`POST /_control/reset {"fixture", "shape"}`).

A stand-in and its client must not agree on a mistake: the client may require only what §2 of the spec shows.

- `rich` (the default): §2's members, plus members §2 does not show that a real server plausibly sends (a
  decision's `answer_label`, a failing test's `outcome`, `job` and `question`, a case's `current_version`, a
  change event's `ref`, `title` and `updated_at`, the project's `revision` on write replies, a folder's `system`
  in more places, a run list row's `verdict` and `slot_count`), and in one plausible shape wherever §2 is silent.
- `spec` ("§2 only"): exactly §2's members, nothing else, and the other plausible shape wherever §2 is silent:
  evidence of a review, a link, an overlap or a sign-off in other members; a run's slots listed last first; run
  list rows of id, name and state only; an old case version as the document, its folder and its tags only; case
  ids that are not their numbers (`c_1001` is C-1), and `{id}` in a path a case's id only, never its number.

Every route passes its reply through the function here for its object; in `rich` mode each returns it as built.
"""

from common import S

QUESTION = ("id", "kind", "state", "title", "web_url", "evidence", "answers", "withdraw_reason_required", "decision")
DECISION = ("id", "question_id", "answer", "by", "at", "reason", "tracker")
RESULT = ("id", "outcome", "note", "failed_step", "by", "at")
CHANGE_ROW = ("id", "ref", "title", "state", "head", "gate", "updated_at")
CHANGE = ("id", "state", "head", "base", "ref", "updated_at")
CHANGE_EVENT = ("id", "state", "head", "gate")
CASE = ("id", "number", "version", "title", "preconditions", "steps", "runnable_by", "folder", "tags", "web_url")
OLD_VERSION = ("title", "preconditions", "steps", "folder", "tags")
# The first id of a case in `spec` mode: case ids are not their numbers there.
SPEC_CASE_ID_START = 1001


def spec() -> bool:
    return S.shape == "spec"


def keep(obj: dict | None, keys) -> dict | None:
    """`obj` with only `keys` in `spec` mode (as it is otherwise)."""
    if obj is None or not spec():
        return obj
    return {key: obj[key] for key in keys if key in obj}


def question(reply: dict) -> dict:
    if not spec():
        return reply
    shaped = keep(reply, (*QUESTION, "ledger"))
    shaped["decision"] = keep(reply["decision"], DECISION)
    shaped["evidence"] = evidence(reply["evidence"])
    return shaped


def evidence(value: dict) -> dict:
    """§2 defines a failure's and a proposal's evidence; the other kinds get their other plausible shape."""
    if not spec():
        return value
    shaped = {}
    for kind, member in value.items():
        if kind in ("failure", "proposal") or not isinstance(member, dict):
            shaped[kind] = member
        elif kind == "review":
            shaped[kind] = {
                "summary": member.get("finding"),
                "reviewer": (member.get("by") or {}).get("name"),
                "case_number": (member.get("case") or {}).get("number"),
            }
        elif kind == "link":
            shaped[kind] = {
                "test_name": member.get("test"),
                "candidates": [case.get("number") for case in member.get("suggested") or []],
            }
        elif kind == "overlap":
            shaped[kind] = {
                "case_number": (member.get("case") or {}).get("number"),
                "fields": ", ".join(member.get("fields") or []),
            }
        elif kind == "sign_off":
            shaped[kind] = {"run_name": (member.get("run") or {}).get("name")}
        else:
            shaped[kind] = member
    return shaped


def decision(reply: dict | None) -> dict | None:
    return keep(reply, DECISION)


def result(reply: dict | None) -> dict | None:
    return keep(reply, RESULT)


def run(reply: dict) -> dict:
    """§2 lists a run's slots without saying in which order: `spec` lists them last first."""
    if not spec():
        return reply
    shaped = keep(reply, ("id", "name", "state", "verdict", "accepts", "slots"))
    shaped["slots"] = [slot(item) for item in reversed(reply["slots"])]
    return shaped


def slot(reply: dict) -> dict:
    if not spec():
        return reply
    shaped = keep(reply, ("id", "position", "case", "result"))
    shaped["result"] = result(reply["result"])
    return shaped


def run_row(reply: dict) -> dict:
    """§2 shows no row of the runs list: `rich` sends the verdict and the slot count too, `spec` only these."""
    return keep(reply, ("id", "name", "state"))


def change_row(reply: dict) -> dict:
    return keep(reply, CHANGE_ROW)


def change(reply: dict) -> dict:
    return keep(reply, CHANGE)


def change_event(data: dict) -> dict:
    """§2's `change` event data: `{"id", "state", "head", "gate"}` (the stream adds the revision)."""
    return keep(data, CHANGE_EVENT)


def failing_test(reply: dict) -> dict:
    if not spec():
        return reply
    shaped = keep(reply, ("test", "message", "cases"))
    shaped["cases"] = [keep(case, ("id", "number")) for case in reply["cases"]]
    return shaped


def case_page(reply: dict, old: bool) -> dict:
    """A case; an old version is "the document as of that version, with the current folder and tags"."""
    return keep(reply, OLD_VERSION if old else CASE)


def write_reply(reply: dict, *keys) -> dict:
    """A write's reply with §2's members: the project's revision is not among them."""
    return keep(reply, keys)


PROPOSAL = {
    "adopted": ("id", "state", "case_id", "version"),
    "waiting": ("id", "state", "question_id"),
    "overlap": ("id", "state", "question_id", "overlap"),
}


def proposal(reply: dict) -> dict:
    """`POST P/proposals`: §2 shows one shape per state, and no revision."""
    if not spec():
        return reply
    made = reply["proposal"]
    return {"proposal": keep(made, PROPOSAL.get(made["state"], tuple(made)))}
