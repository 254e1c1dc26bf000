"""Finance fixtures for the Certain reference server (a stand-in, see README.md).

Two fixtures fill the finance tables after the users exist (each a fill function of the shared store,
`standin.store`):

- "default": two years of a realistic household (about 2,100 transactions per data user) for the users
  `plain` and `totp`, from 2024-12 up to the server's current month (whose bookings all lie on or before
  today), a small separate household for `other`, nothing for `mustchange` and `mfapolicy`. It holds every
  shape the reference API names: the three transfer shapes, October 2026's budget with every warning,
  budget months 2026-08, 2026-10 and the current month only (so October's `prev` skips September), the
  current month's with its rent over plan.
- "edge": a small, hand-written set for `plain` with the cases a real bank export produces: a pair
  whose legs sit on different pages, a pair where only one leg matches a search, a one-piece transfer into
  Girokonto from another account (found by an account filter only through `to_account_id`), amounts with
  four decimals in USD, a yen amount, a USD amount on a day without a rate, a booking carrying a tag that
  was deleted, an empty account, a month with no budget.

Everything is deterministic (a seeded random source), so two resets give the same rows.
"""

import random
import sqlite3
from datetime import UTC, date, datetime
from decimal import Decimal

FINANCE_SCHEMA = """
CREATE TABLE accounts (
    id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, currency TEXT NOT NULL,
    opening TEXT NOT NULL, archived INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL);
CREATE TABLE category_groups (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, name TEXT NOT NULL);
CREATE TABLE categories (
    id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, name TEXT NOT NULL, group_id INTEGER NOT NULL,
    kind TEXT NOT NULL);
CREATE TABLE tags (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, name TEXT NOT NULL);
CREATE TABLE transactions (
    id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, account_id INTEGER NOT NULL, booked_on TEXT NOT NULL,
    amount TEXT NOT NULL, currency TEXT NOT NULL, counterparty TEXT, purpose TEXT, category_id INTEGER,
    to_account_id INTEGER, created_at TEXT NOT NULL);
CREATE INDEX transactions_order ON transactions (user_id, booked_on DESC, id DESC);
CREATE TABLE transaction_tags (transaction_id INTEGER NOT NULL, tag_id INTEGER NOT NULL);
CREATE TABLE transfer_links (id INTEGER PRIMARY KEY, from_id INTEGER NOT NULL, to_id INTEGER NOT NULL);
CREATE TABLE budgets (
    user_id INTEGER NOT NULL, month TEXT NOT NULL, category_id INTEGER NOT NULL, planned TEXT NOT NULL);
CREATE TABLE contracts (
    id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, name TEXT NOT NULL, amount TEXT NOT NULL, currency TEXT NOT NULL,
    rhythm TEXT NOT NULL, next_due TEXT NOT NULL, category_id INTEGER, account_id INTEGER NOT NULL);
"""

# USD -> EUR per month; a date listed in MISSING_RATES has no rate (the budget's missing_exchange_rate case).
USD_RATES = {}
for _i in range(36):
    _y, _m = 2024 + (_i + 9) // 12, (_i + 9) % 12 + 1
    USD_RATES[f"{_y:04d}-{_m:02d}"] = Decimal("0.9000") + Decimal(_i % 7) * Decimal("0.0050")
MISSING_RATES = {("USD", "2026-10-12")}


def rate(currency: str, day: str):
    """The rate from `currency` to EUR on `day`, or None when there is none."""
    if currency == "EUR":
        return Decimal(1)
    if (currency, day) in MISSING_RATES:
        return None
    if currency == "USD":
        return USD_RATES.get(day[:7])
    return None


def stamp(day: date, rng: random.Random) -> str:
    hour, minute, second, micro = rng.randrange(6, 22), rng.randrange(60), rng.randrange(60), rng.randrange(1000000)
    return f"{day.isoformat()}T{hour:02d}:{minute:02d}:{second:02d}.{micro:06d}"


class Builder:
    """Inserts one user's rows and remembers names -> ids."""

    def __init__(self, db: sqlite3.Connection, user_id: int, seed: int):
        self.db, self.user, self.rng = db, user_id, random.Random(seed)
        self.account, self.category, self.tag = {}, {}, {}

    def accounts(self, rows):
        for name, kind, currency, opening in rows:
            self.account[name] = self.db.execute(
                "INSERT INTO accounts (user_id, name, kind, currency, opening, created_at) VALUES (?,?,?,?,?,?)",
                (self.user, name, kind, currency, opening, "2024-11-20T09:00:00.000001"),
            ).lastrowid

    def categories(self, groups):
        for group, items in groups:
            gid = self.db.execute(
                "INSERT INTO category_groups (user_id, name) VALUES (?,?)", (self.user, group)
            ).lastrowid
            for name, kind in items:
                self.category[name] = self.db.execute(
                    "INSERT INTO categories (user_id, name, group_id, kind) VALUES (?,?,?,?)",
                    (self.user, name, gid, kind),
                ).lastrowid

    def tags(self, names):
        for name in names:
            self.tag[name] = self.db.execute(
                "INSERT INTO tags (user_id, name) VALUES (?,?)", (self.user, name)
            ).lastrowid

    def txn(self, account, day, amount, counterparty, purpose, category=None, to=None, tags=(), currency=None):
        acc = self.account[account]
        cur = currency or self.db.execute("SELECT currency FROM accounts WHERE id = ?", (acc,)).fetchone()[0]
        tid = self.db.execute(
            "INSERT INTO transactions (user_id, account_id, booked_on, amount, currency, counterparty, purpose,"
            " category_id, to_account_id, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                self.user,
                acc,
                day.isoformat(),
                str(amount),
                cur,
                counterparty,
                purpose,
                self.category.get(category) if category else None,
                self.account[to] if to else None,
                stamp(day, self.rng),
            ),
        ).lastrowid
        for tag in tags:
            self.db.execute("INSERT INTO transaction_tags VALUES (?,?)", (tid, self.tag[tag]))
        return tid

    def link(self, from_id, to_id):
        return self.db.execute("INSERT INTO transfer_links (from_id, to_id) VALUES (?,?)", (from_id, to_id)).lastrowid

    def pair(self, day, src, dst, amount, purpose, both_positive=False, purposes=None):
        first, second = purposes or (purpose, purpose)
        a = self.txn(src, day, amount if both_positive else -amount, dst, first)
        b = self.txn(dst, day, amount, src, second)
        return self.link(a, b), a, b

    def budget(self, month, planned):
        for name, value in planned.items():
            self.db.execute("INSERT INTO budgets VALUES (?,?,?,?)", (self.user, month, self.category[name], str(value)))

    def contract(self, name, amount, currency, rhythm, next_due, category, account):
        self.db.execute(
            "INSERT INTO contracts (user_id, name, amount, currency, rhythm, next_due, category_id, account_id)"
            " VALUES (?,?,?,?,?,?,?,?)",
            (
                self.user,
                name,
                amount,
                currency,
                rhythm,
                next_due,
                self.category.get(category) if category else None,
                self.account[account],
            ),
        )

    def actual(self, month, category):
        """Spent (expense, savings) or received (income) in EUR, as the server's budget computes it."""
        kind = self.db.execute("SELECT kind FROM categories WHERE id = ?", (self.category[category],)).fetchone()[0]
        total = Decimal(0)
        for amount, currency, day in self.db.execute(
            "SELECT amount, currency, booked_on FROM transactions WHERE category_id = ? AND booked_on LIKE ?",
            (self.category[category], month + "%"),
        ):
            r = rate(currency, day)
            if r is not None:
                total += (Decimal(amount) * r).quantize(Decimal("0.01"))
        return total if kind == "income" else -total


HOUSEHOLD_GROUPS = [
    ("Wohnen", [("Miete", "expense"), ("Strom & Gas", "expense"), ("Rücklage Wohnung", "savings")]),
    ("Lebenshaltung", [("Lebensmittel", "expense"), ("Drogerie", "expense"), ("Restaurant", "expense")]),
    ("Mobilität", [("Tanken", "expense"), ("Bahn", "expense")]),
    ("Freizeit", [("Streaming", "expense"), ("Sport", "expense"), ("Bücher", "expense"), ("Einkäufe", "expense")]),
    ("Sparen", [("ETF-Sparplan", "savings")]),
    ("Einkommen", [("Gehalt", "income"), ("Zinsen", "income")]),
    ("Finanzen", [("Depotgebühren", "expense")]),
]

GROCERS = ["REWE", "EDEKA", "ALDI SÜD", "Lidl", "Bäckerei Kamps", "Wochenmarkt", "Netto"]
RESTAURANTS = ["Trattoria Da Enzo", "Sushi Circle", "Café Central", "Burgerei", "Thai Orchid"]
SHOPS = ["Amazon", "Otto", "MediaMarkt", "IKEA", "Decathlon", "H&M"]


def months(first: date, count: int):
    y, m = first.year, first.month
    for _ in range(count):
        yield y, m
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)


def month_count(first: date, today: date) -> int:
    """The months from `first` up to today's (at least up to 2026-11, the end of the fixture's own story)."""
    last = max((today.year, today.month), (2026, 11))
    return (last[0] - first.year) * 12 + last[1] - first.month + 1


def household(db: sqlite3.Connection, user_id: int, seed: int, today: date) -> None:
    """Two years of one household's money (2024-12 ..), up to the current month: its bookings all lie on or
    before `today` (a day later in the month is moved back to today), so the overview's month has data."""
    b = Builder(db, user_id, seed)
    rng = b.rng
    b.accounts(
        [
            ("Girokonto", "checking", "EUR", "1520.00"),
            ("Tagesgeld", "savings", "EUR", "5000.00"),
            ("Depot", "brokerage", "USD", "10000.00"),
        ]
    )
    b.categories(HOUSEHOLD_GROUPS)
    b.tags(["Fixkosten", "Urlaub", "Geschenk", "Steuer"])

    def cents(low, high):
        return Decimal(rng.randrange(int(low * 100), int(high * 100))) / 100

    first = date(2024, 12, 1)
    for y, m in months(first, month_count(first, today)):
        last = 30 if m in (4, 6, 9, 11) else (29 if m == 2 and y % 4 == 0 else 28 if m == 2 else 31)
        if (y, m) == (today.year, today.month):
            last = today.day

        def day(d, y=y, m=m, last=last):
            return date(y, m, min(d, last))

        october = (y, m) == (2026, 10)
        b.txn("Girokonto", day(1), Decimal("-900.00"), "Hausverwaltung Berger", "Miete", "Miete", tags=["Fixkosten"])
        b.txn(
            "Girokonto",
            day(15),
            Decimal("-88.00"),
            "Stadtwerke",
            "Abschlag Strom/Gas",
            "Strom & Gas",
            tags=["Fixkosten"],
        )
        b.txn(
            "Girokonto",
            day(27),
            Decimal("4650.00") if october else Decimal("4500.00"),
            "Muster GmbH",
            f"Gehalt {m:02d}/{y}",
            "Gehalt",
        )
        b.txn("Girokonto", day(3), Decimal("-13.99"), "Netflix", "Abo", "Streaming", tags=["Fixkosten"])
        b.txn("Girokonto", day(5), Decimal("-10.99"), "Spotify", "Abo", "Streaming", tags=["Fixkosten"])
        b.txn("Girokonto", day(1), Decimal("-29.90"), "FitX", "Mitgliedsbeitrag", "Sport", tags=["Fixkosten"])
        b.txn(
            "Girokonto",
            day(2),
            Decimal("-300.00") if october else Decimal("-150.00"),
            "Broker AG",
            "ETF-Sparplan",
            "ETF-Sparplan",
        )
        b.txn("Girokonto", day(20), Decimal("-50.00"), "Bausparkasse", "Rücklage", "Rücklage Wohnung")
        for _ in range(26):
            b.txn("Girokonto", day(rng.randrange(1, 29)), -cents(3, 95), rng.choice(GROCERS), "Einkauf", "Lebensmittel")
        for _ in range(4):
            b.txn(
                "Girokonto",
                day(rng.randrange(1, 29)),
                -cents(2, 30),
                rng.choice(["dm", "Rossmann"]),
                "Drogerie",
                "Drogerie",
            )
        for _ in range(7):
            b.txn(
                "Girokonto",
                day(rng.randrange(1, 29)),
                -cents(12, 80),
                rng.choice(RESTAURANTS),
                "Essen",
                "Restaurant",
                tags=["Urlaub"] if m == 8 else (),
            )
        for _ in range(3):
            b.txn(
                "Girokonto",
                day(rng.randrange(1, 29)),
                -cents(40, 85),
                rng.choice(["Aral", "Shell", "JET"]),
                "Tanken",
                "Tanken",
            )
        for _ in range(3):
            b.txn("Girokonto", day(rng.randrange(1, 29)), -cents(3, 60), "Deutsche Bahn", "Fahrkarte", "Bahn")
        for _ in range(6):
            gift = rng.random() < 0.15
            b.txn(
                "Girokonto",
                day(rng.randrange(1, 29)),
                -cents(8, 140),
                rng.choice(SHOPS),
                "Geschenk" if gift else "Bestellung",
                "Einkäufe",
                tags=["Geschenk"] if gift else (),
            )
        b.txn("Girokonto", day(rng.randrange(1, 29)), -cents(9, 30), "Thalia", "Buch", "Bücher")
        for _ in range(22):  # card payments the bank delivers without a category
            b.txn(
                "Girokonto",
                day(rng.randrange(1, 29)),
                -cents(2, 6),
                rng.choice(["Kiosk", "Coffee Fellows", "Parkhaus", "Bäckerei"]),
                "Kartenzahlung",
            )
        # The monthly savings transfer: two linked legs, as the bank delivers them.
        if not october:
            b.pair(day(14), "Girokonto", "Tagesgeld", Decimal("250.00"), "Sparen")
        if m % 3 == 0:
            b.txn("Tagesgeld", day(last), cents(4, 12), "Bank", "Zinsen", "Zinsen")
        b.txn("Depot", day(6), Decimal("-200.00"), "Broker Inc.", "MSCI World savings plan")
        b.txn("Depot", day(7), Decimal("-2.50"), "Broker Inc.", "Custody fee", "Depotgebühren")
        if (y, m) == (2026, 10):
            # The three transfer shapes, and the USD fee on a day with no exchange rate.
            b.pair(day(14), "Girokonto", "Tagesgeld", Decimal("250.00"), "Sparen", both_positive=True)
            b.txn("Tagesgeld", day(2), Decimal("-100.00"), "Tagesgeld", "Umbuchung", to="Girokonto")
            b.txn("Depot", day(12), Decimal("-4.99"), "Broker Inc.", "Wire fee", "Depotgebühren")
            b.txn("Girokonto", day(9), -Decimal("12.90"), "Thalia", "Buch", "Bücher")

    # Budgets: August and October 2026 only. October: groceries over plan (red), restaurants under by more
    # (so Lebenshaltung stays not red), electricity over plan (Wohnen red), savings and income over plan
    # (never red), books planned 0 and spent (red).
    actual = b.actual
    b.budget(
        "2026-08",
        {
            "Miete": Decimal("900.00"),
            "Strom & Gas": Decimal("90.00"),
            "Rücklage Wohnung": Decimal("50.00"),
            "Lebensmittel": Decimal("1400.00"),
            "Drogerie": Decimal("80.00"),
            "Restaurant": Decimal("400.00"),
            "Tanken": Decimal("220.00"),
            "Bahn": Decimal("100.00"),
            "Streaming": Decimal("25.00"),
            "Sport": Decimal("29.90"),
            "ETF-Sparplan": Decimal("150.00"),
            "Gehalt": Decimal("4500.00"),
        },
    )
    groceries = actual("2026-10", "Lebensmittel")
    restaurants = actual("2026-10", "Restaurant")
    b.budget(
        "2026-10",
        {
            "Miete": Decimal("900.00"),
            "Strom & Gas": Decimal("80.00"),
            "Rücklage Wohnung": Decimal("50.00"),
            "Lebensmittel": (groceries - Decimal("40.00")).quantize(Decimal("1")),
            "Restaurant": (restaurants + Decimal("60.00")).quantize(Decimal("1")),
            "Drogerie": Decimal("80.00"),
            "Tanken": Decimal("250.00"),
            "Bahn": Decimal("100.00"),
            "Streaming": Decimal("25.00"),
            "Sport": Decimal("29.90"),
            "Bücher": Decimal("0.00"),
            "ETF-Sparplan": Decimal("150.00"),
            "Gehalt": Decimal("4500.00"),
            "Depotgebühren": Decimal("10.00"),
        },
    )
    # The current month (when it is not one of the story's): rent over plan (Wohnen red), groceries and
    # restaurants well under theirs (Lebenshaltung not red), income as planned.
    current = f"{today.year:04d}-{today.month:02d}"
    if current not in ("2026-08", "2026-10"):
        b.budget(
            current,
            {
                "Miete": Decimal("850.00"),
                "Lebensmittel": Decimal("3000.00"),
                "Restaurant": Decimal("600.00"),
                "ETF-Sparplan": Decimal("150.00"),
                "Gehalt": Decimal("4500.00"),
            },
        )
    for name, amount, currency, rhythm, due, category, account in [
        ("Miete", "900.00", "EUR", "monthly", "2026-12-01", "Miete", "Girokonto"),
        ("Fitnessstudio", "29.90", "EUR", "monthly", "2026-12-01", None, "Girokonto"),
        ("Netflix", "13.99", "EUR", "monthly", "2026-12-03", "Streaming", "Girokonto"),
        ("Haftpflichtversicherung", "65.00", "EUR", "yearly", "2027-03-01", None, "Girokonto"),
        ("Strom", "88.00", "EUR", "monthly", "2026-12-15", "Strom & Gas", "Girokonto"),
        ("Zeitung", "42.50", "EUR", "quarterly", "2027-01-01", "Bücher", "Girokonto"),
        ("Kfz-Versicherung", "312.40", "EUR", "half_yearly", "2027-01-01", "Tanken", "Girokonto"),
        ("Putzhilfe", "45.00", "EUR", "weekly", "2026-12-04", "Drogerie", "Girokonto"),
        ("Cloud-Speicher", "9.99", "USD", "monthly", "2026-12-10", "Einkäufe", "Depot"),
        ("Skipass-Abo", "120.00", "CHF", "yearly", "2027-01-15", "Sport", "Girokonto"),
    ]:
        b.contract(name, amount, currency, rhythm, due, category, account)


def small_household(db: sqlite3.Connection, user_id: int) -> None:
    """Another user's data: never visible to the data users (per-user isolation)."""
    b = Builder(db, user_id, 99)
    b.accounts([("Gemeinschaftskonto", "checking", "EUR", "300.00")])
    b.categories([("Alltag", [("Haushalt", "expense")])])
    b.tags(["Privat"])
    for d in range(1, 6):
        b.txn("Gemeinschaftskonto", date(2026, 11, d), Decimal("-7.50"), "Kiosk Otto", "Zeitung", "Haushalt")


def default(store) -> None:
    db = store.db
    users = {name: uid for uid, name in db.execute("SELECT id, username FROM users")}
    today = datetime.fromtimestamp(store.clock.now(), UTC).date()
    household(db, users["plain"], 1, today)
    household(db, users["totp"], 2, today)
    small_household(db, users["other"])


def edge(store) -> None:
    """Hand-written cases for `plain`; the tests find them by counterparty and purpose, never by id."""
    db = store.db
    user = db.execute("SELECT id FROM users WHERE username = 'plain'").fetchone()[0]
    b = Builder(db, user, 7)
    b.accounts(
        [
            ("Girokonto", "checking", "EUR", "100.00"),
            ("Tagesgeld", "savings", "EUR", "0.00"),
            ("Depot", "brokerage", "USD", "0.00"),
            ("Leeres Konto", "checking", "EUR", "0.00"),
            ("Bargeld", "cash", "EUR", "500.00"),
            ("Reisekasse", "cash", "JPY", "50000"),
        ]
    )
    b.categories([("Alltag", [("Lebensmittel", "expense"), ("Gehalt", "income")])])
    b.tags(["Fixkosten", "Urlaub"])
    # Newest first in the list: a pair whose two legs are five rows apart (pages of 3 split them).
    b.pair(date(2026, 10, 20), "Girokonto", "Tagesgeld", Decimal("75.00"), "Split", purposes=("Split Hin", "Split Her"))
    db.execute("UPDATE transactions SET booked_on = '2026-10-18' WHERE purpose = 'Split Her'")
    for d, who in [(19, "Bäcker A"), (19, "Bäcker B"), (19, "Bäcker C"), (18, "Bäcker D")]:
        b.txn("Girokonto", date(2026, 10, d), Decimal("-3.20"), who, "Brötchen", "Lebensmittel")
    # A pair where only one leg matches the search "Urlaubskasse".
    b.pair(date(2026, 10, 10), "Girokonto", "Tagesgeld", Decimal("300.00"), "x", purposes=("Urlaubskasse", "Eingang"))
    # Two unlinked transactions of -X and +X on the same day: not a transfer.
    b.txn("Girokonto", date(2026, 10, 8), Decimal("-42.00"), "Flohmarkt", "Verkauf/Kauf", "Lebensmittel")
    b.txn("Tagesgeld", date(2026, 10, 8), Decimal("42.00"), "Flohmarkt", "Verkauf/Kauf")
    # USD with four decimals (fractional shares).
    b.txn("Depot", date(2026, 10, 6), Decimal("-12.3456"), "Broker Inc.", "Fractional share")
    b.txn("Depot", date(2026, 10, 6), Decimal("-0.0004"), "Broker Inc.", "Rounding")
    # A one-piece transfer from the cash box into Girokonto: Girokonto is only its `to_account_id`.
    b.txn("Bargeld", date(2026, 10, 3), Decimal("-200.00"), None, "Bareinzahlung", to="Girokonto")
    # A USD snack on 12 October, a day with no exchange rate: named in the budget, in no sum.
    b.txn("Girokonto", date(2026, 10, 12), Decimal("-5.00"), "Airport Kiosk", "Snack", "Lebensmittel", currency="USD")
    # A yen amount, tagged, one of its tags deleted on the web since (the booking keeps its id).
    ramen = b.txn("Reisekasse", date(2026, 10, 9), Decimal("-1850"), "Ramen Ichiran", "Abendessen", tags=["Urlaub"])
    db.execute("INSERT INTO transaction_tags VALUES (?,?)", (ramen, DELETED_TAG))
    b.txn("Girokonto", date(2026, 10, 1), Decimal("1000.00"), "Muster GmbH", "Gehalt", "Gehalt")
    b.budget("2026-10", {"Lebensmittel": Decimal("10.00"), "Gehalt": Decimal("1000.00")})


# The id of a tag that no longer exists (deleted on the web): `/api/tags` does not list it.
DELETED_TAG = 999_999

FIXTURES = {"default": default, "edge": edge}
