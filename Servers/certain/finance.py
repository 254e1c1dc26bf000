"""The Certain stand-in's data endpoints: lookups, month report, budget, transactions, contracts.

Every reply carries ids, never embedded names (the app resolves names from the lookups). Amounts are
decimal strings with a currency; sums are worked out here, in the base currency (EUR), and an amount
with no exchange rate for its date is left out of every sum and named in `warnings`.
"""

import base64
import binascii
import json
import re
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_EVEN, Decimal

from starlette.requests import Request
from starlette.responses import JSONResponse

from fixtures import rate

BASE = "EUR"
CENT = Decimal("0.01")
PERIODS = {"weekly": 52, "monthly": 12, "quarterly": 4, "half_yearly": 2, "yearly": 1}
MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")
DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class Api:
    """What the data routes need from server.py (bound at start-up): the store, the caller check, errors."""

    store = None
    full_user = None
    error = None
    now = None
    # Where §2 is silent (a contract's missing-rate notice), the shape served: §2's `transaction_ids` (empty: no
    # transaction is left out) by default, or `contract_ids` naming the contracts (POST /_control/shape).
    contract_notice_ids = "transaction_ids"


API = Api()


def casefold(text):
    """SQLite's `casefold(text)`: Python's Unicode case folding (registered on the store's connection)."""
    return None if text is None else str(text).casefold()


def register_functions(db) -> None:
    """The SQL functions the data routes use, on the store's connection (kept across fixture resets)."""
    db.create_function("casefold", 1, casefold, deterministic=True)


def money(value: Decimal) -> str:
    """A decimal string with at least two decimals ("250.00", "-12.3456")."""
    if value == value.quantize(CENT):
        return str(value.quantize(CENT))
    return str(value.normalize()) if "E" not in str(value.normalize()) else f"{value:f}"


def invalid(loc: list, msg: str, kind: str, value=None) -> JSONResponse:
    """FastAPI's 422 shape: a list of problems, each with its location, message and type."""
    item = {"loc": loc, "msg": msg, "type": kind}
    if value is not None:
        item["input"] = value
    return JSONResponse({"detail": [item]}, status_code=422)


def today() -> date:
    return datetime.fromtimestamp(API.now(), UTC).date()


def month_param(request: Request):
    """The `month` query (YYYY-MM), the current month by default; or a 422 reply."""
    value = request.query_params.get("month")
    if value is None:
        return today().strftime("%Y-%m"), None
    if not MONTH.match(value):
        return None, invalid(
            ["query", "month"], "String should match pattern '^\\d{4}-\\d{2}$'", "string_pattern_mismatch", value
        )
    return value, None


def user_or_failure(request: Request):
    user, _, _, failure = API.full_user(request)
    return user, failure


def is_transfer(row) -> bool:
    return row["to_account_id"] is not None or row["link_id"] is not None


TXN_SELECT = """
SELECT t.*, l.id AS link_id, l.from_id, l.to_id,
       fa.account_id AS from_account_id, ta.account_id AS link_to_account_id
FROM transactions t
LEFT JOIN transfer_links l ON l.from_id = t.id OR l.to_id = t.id
LEFT JOIN transactions fa ON fa.id = l.from_id
LEFT JOIN transactions ta ON ta.id = l.to_id
"""


def in_base(amount: Decimal, currency: str, day: str):
    r = rate(currency, day)
    return None if r is None else (amount * r).quantize(CENT, ROUND_HALF_EVEN)


MONTHS_BETWEEN_DUES = {"monthly": 1, "quarterly": 3, "half_yearly": 6, "yearly": 12}


def due_in(contract, month: str) -> bool:
    """Whether `contract` is due in `month` (YYYY-MM): its due days are its next due day stepped by its rhythm,
    back and forth; a weekly one is due every month."""
    step = MONTHS_BETWEEN_DUES.get(contract["rhythm"])
    if step is None:
        return True
    due_year, due_month = int(contract["next_due"][:4]), int(contract["next_due"][5:7])
    year, number = int(month[:4]), int(month[5:7])
    return ((year - due_year) * 12 + number - due_month) % step == 0


def missing_rate_warnings(missing: dict) -> list:
    return [
        {"code": "missing_exchange_rate", "currency": cur, "date": day, "transaction_ids": sorted(ids)}
        for (cur, day), ids in sorted(missing.items())
    ]


# ---- lookups ---------------------------------------------------------------------------------------


def balance_of(account) -> Decimal:
    """Opening balance plus every movement; a linked leg counts by its direction, not its sign."""
    total = Decimal(account["opening"])
    for row in API.store.all(
        TXN_SELECT + " WHERE t.account_id = ? OR t.to_account_id = ?", account["id"], account["id"]
    ):
        amount = Decimal(row["amount"])
        if row["account_id"] == account["id"]:
            if row["link_id"] is not None:
                total += -abs(amount) if row["from_id"] == row["id"] else abs(amount)
            else:
                total += amount
        else:  # the receiving side of a one-piece transfer
            total += abs(amount)
    return total


async def accounts(request: Request):
    user, failure = user_or_failure(request)
    if failure:
        return failure
    rows = API.store.all("SELECT * FROM accounts WHERE user_id = ? ORDER BY id", user["id"])
    return JSONResponse(
        [
            {
                "id": r["id"],
                "name": r["name"],
                "kind": r["kind"],
                "currency": r["currency"],
                "balance": money(balance_of(r)),
                "archived": bool(r["archived"]),
                "created_at": r["created_at"],
            }
            for r in rows
        ]
    )


async def categories(request: Request):
    user, failure = user_or_failure(request)
    if failure:
        return failure
    rows = API.store.all(
        "SELECT c.*, g.name AS group_name FROM categories c JOIN category_groups g ON g.id = c.group_id"
        " WHERE c.user_id = ? ORDER BY c.id",
        user["id"],
    )
    return JSONResponse(
        [
            {
                "id": r["id"],
                "name": r["name"],
                "group_id": r["group_id"],
                "group_name": r["group_name"],
                "kind": r["kind"],
            }
            for r in rows
        ]
    )


async def tags(request: Request):
    user, failure = user_or_failure(request)
    if failure:
        return failure
    rows = API.store.all("SELECT * FROM tags WHERE user_id = ? ORDER BY id", user["id"])
    return JSONResponse([{"id": r["id"], "name": r["name"]} for r in rows])


# ---- month report and budget -----------------------------------------------------------------------


async def report_month(request: Request):
    user, failure = user_or_failure(request)
    if failure:
        return failure
    month, bad = month_param(request)
    if bad:
        return bad
    income, expenses, missing = Decimal(0), Decimal(0), {}
    for row in API.store.all(TXN_SELECT + " WHERE t.user_id = ? AND t.booked_on LIKE ?", user["id"], month + "%"):
        if is_transfer(row):
            continue  # a transfer is neither income nor expense
        value = in_base(Decimal(row["amount"]), row["currency"], row["booked_on"])
        if value is None:
            missing.setdefault((row["currency"], row["booked_on"]), []).append(row["id"])
        elif value > 0:
            income += value
        else:
            expenses -= value
    return JSONResponse(
        {
            "month": month,
            "currency": BASE,
            "income": money(income),
            "expenses": money(expenses),
            "warnings": missing_rate_warnings(missing),
        }
    )


def budget_months(user_id: int) -> list:
    return [
        r["month"]
        for r in API.store.all("SELECT DISTINCT month FROM budgets WHERE user_id = ? ORDER BY month", user_id)
    ]


async def budget(request: Request):
    user, failure = user_or_failure(request)
    if failure:
        return failure
    month, bad = month_param(request)
    if bad:
        return bad
    known = budget_months(user["id"])
    earlier = [m for m in known if m < month]
    later = [m for m in known if m > month]
    plans = API.store.all(
        "SELECT b.planned, c.id, c.kind, c.group_id, g.name AS group_name FROM budgets b"
        " JOIN categories c ON c.id = b.category_id JOIN category_groups g ON g.id = c.group_id"
        " WHERE b.user_id = ? AND b.month = ? ORDER BY c.group_id, c.id",
        user["id"],
        month,
    )
    missing, groups = {}, []
    for plan in plans:
        actual = Decimal(0)
        for row in API.store.all(
            "SELECT id, amount, currency, booked_on FROM transactions WHERE category_id = ? AND booked_on LIKE ?",
            plan["id"],
            month + "%",
        ):
            value = in_base(Decimal(row["amount"]), row["currency"], row["booked_on"])
            if value is None:
                missing.setdefault((row["currency"], row["booked_on"]), []).append(row["id"])
            else:
                actual += value
        if plan["kind"] != "income":
            actual = -actual
        if not groups or groups[-1]["id"] != plan["group_id"]:
            groups.append(
                {
                    "id": plan["group_id"],
                    "name": plan["group_name"],
                    "planned": Decimal(0),
                    "actual": Decimal(0),
                    "categories": [],
                }
            )
        group = groups[-1]
        group["planned"] += Decimal(plan["planned"])
        group["actual"] += actual
        group["categories"].append(
            {
                "category_id": plan["id"],
                "kind": plan["kind"],
                "planned": money(Decimal(plan["planned"])),
                "actual": money(actual),
            }
        )
    for group in groups:
        group["planned"], group["actual"] = money(group["planned"]), money(group["actual"])
    warnings = []
    if plans:
        for c in API.store.all(
            "SELECT * FROM contracts WHERE user_id = ? AND category_id IS NULL ORDER BY id", user["id"]
        ):
            if not due_in(c, month):
                continue
            warnings.append(
                {
                    "code": "contract_without_category",
                    "contract_id": c["id"],
                    "name": c["name"],
                    "amount": c["amount"],
                    "currency": c["currency"],
                }
            )
    warnings += missing_rate_warnings(missing)
    return JSONResponse(
        {
            "month": month,
            "currency": BASE,
            "prev": f"/api/budget?month={earlier[-1]}" if earlier else None,
            "next": f"/api/budget?month={later[0]}" if later else None,
            "groups": groups,
            "warnings": warnings,
            "complete": not warnings,
        }
    )


# ---- transactions ----------------------------------------------------------------------------------


def encode_cursor(row) -> str:
    raw = json.dumps({"b": row["booked_on"], "i": row["id"]}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def decode_cursor(text: str):
    try:
        data = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        return str(data["b"]), int(data["i"])
    except (binascii.Error, ValueError, KeyError, TypeError):
        return None


def int_param(request: Request, name: str, low=None, high=None):
    value = request.query_params.get(name)
    if value is None or value == "":
        return None, None
    try:
        number = int(value)
    except ValueError:
        return None, invalid(
            ["query", name],
            "Input should be a valid integer, unable to parse string as an integer",
            "int_parsing",
            value,
        )
    if low is not None and number < low:
        return None, invalid(
            ["query", name], f"Input should be greater than or equal to {low}", "greater_than_equal", value
        )
    if high is not None and number > high:
        return None, invalid(["query", name], f"Input should be less than or equal to {high}", "less_than_equal", value)
    return number, None


def txn_json(row, tag_ids) -> dict:
    link = None
    if row["link_id"] is not None:
        link = {
            "id": row["link_id"],
            "from_id": row["from_id"],
            "from_account_id": row["from_account_id"],
            "to_id": row["to_id"],
            "to_account_id": row["link_to_account_id"],
        }
    return {
        "id": row["id"],
        "account_id": row["account_id"],
        "booked_on": row["booked_on"],
        "amount": money(Decimal(row["amount"])),
        "currency": row["currency"],
        "counterparty": row["counterparty"],
        "purpose": row["purpose"],
        "category_id": row["category_id"],
        "tag_ids": tag_ids,
        "to_account_id": row["to_account_id"],
        "transfer_link": link,
        "created_at": row["created_at"],
    }


async def transactions(request: Request):
    user, failure = user_or_failure(request)
    if failure:
        return failure
    q = request.query_params
    where, args = ["t.user_id = ?"], [user["id"]]
    limit, bad = int_param(request, "limit", 1, 200)
    if bad:
        return bad
    for name in ("account_id", "category_id", "tag_id"):
        value, bad = int_param(request, name)
        if bad:
            return bad
        if value is None:
            continue
        if name == "account_id":
            where.append("(t.account_id = ? OR t.to_account_id = ?)")
            args += [value, value]
        elif name == "category_id":
            where.append("t.category_id = ?")
            args.append(value)
        else:
            where.append("t.id IN (SELECT transaction_id FROM transaction_tags WHERE tag_id = ?)")
            args.append(value)
    for name, op in (("from", ">="), ("to", "<=")):
        value = q.get(name)
        if value:
            if not DAY.match(value):
                return invalid(
                    ["query", name],
                    "Input should be a valid date in the format YYYY-MM-DD",
                    "date_from_datetime_parsing",
                    value,
                )
            where.append(f"t.booked_on {op} ?")
            args.append(value)
    text = (q.get("q") or "").strip()
    if text:
        # Case folded by Unicode rules on both sides (`str.casefold`): "süd" finds "ALDI SÜD", "strasse"
        # finds "Straße". SQLite's own lower() and LIKE fold ASCII letters only.
        pattern = "%" + text.casefold().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        where.append(
            "(casefold(coalesce(t.counterparty,'')) LIKE ? ESCAPE '\\'"
            " OR casefold(coalesce(t.purpose,'')) LIKE ? ESCAPE '\\')"
        )
        args += [pattern, pattern]
    cursor = q.get("cursor")
    if cursor:
        position = decode_cursor(cursor)
        if position is None:
            return invalid(["query", "cursor"], "Invalid cursor", "value_error", cursor)
        where.append("(t.booked_on < ? OR (t.booked_on = ? AND t.id < ?))")
        args += [position[0], position[0], position[1]]
    limit = limit or 50
    rows = API.store.all(
        TXN_SELECT + " WHERE " + " AND ".join(where) + " ORDER BY t.booked_on DESC, t.id DESC LIMIT ?", *args, limit + 1
    )
    page = rows[:limit]
    tag_map = {}
    if page:
        marks = ",".join("?" * len(page))
        for r in API.store.all(
            f"SELECT * FROM transaction_tags WHERE transaction_id IN ({marks}) ORDER BY tag_id",
            *[r["id"] for r in page],
        ):
            tag_map.setdefault(r["transaction_id"], []).append(r["tag_id"])
    return JSONResponse(
        {
            "items": [txn_json(r, tag_map.get(r["id"], [])) for r in page],
            "next_cursor": encode_cursor(page[-1]) if len(rows) > limit else None,
        }
    )


# ---- contracts -------------------------------------------------------------------------------------


async def contracts(request: Request):
    user, failure = user_or_failure(request)
    if failure:
        return failure
    items, monthly_total, yearly_total, missing = [], Decimal(0), Decimal(0), {}
    day = today().isoformat()
    for c in API.store.all("SELECT * FROM contracts WHERE user_id = ? ORDER BY next_due, id", user["id"]):
        yearly = Decimal(c["amount"]) * PERIODS[c["rhythm"]]
        r = rate(c["currency"], day)
        base_yearly = None if r is None else (yearly * r).quantize(CENT, ROUND_HALF_EVEN)
        base_monthly = None if r is None else (base_yearly / 12).quantize(CENT, ROUND_HALF_EVEN)
        if r is None:
            missing.setdefault((c["currency"], day), []).append(c["id"])
        else:
            monthly_total += base_monthly
            yearly_total += base_yearly
        items.append(
            {
                "id": c["id"],
                "name": c["name"],
                "amount": c["amount"],
                "currency": c["currency"],
                "rhythm": c["rhythm"],
                "next_due": c["next_due"],
                "category_id": c["category_id"],
                "account_id": c["account_id"],
                "monthly": money(base_monthly) if base_monthly is not None else None,
                "yearly": money(base_yearly) if base_yearly is not None else None,
            }
        )
    warnings = [
        {"code": "missing_exchange_rate", "currency": cur, "date": d}
        | ({"contract_ids": ids} if API.contract_notice_ids == "contract_ids" else {"transaction_ids": []})
        for (cur, d), ids in sorted(missing.items())
    ]
    return JSONResponse(
        {
            "currency": BASE,
            "monthly_total": money(monthly_total),
            "yearly_total": money(yearly_total),
            "warnings": warnings,
            "items": items,
        }
    )
