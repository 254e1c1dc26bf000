"""Fixture rows the cases part adds to the default fixture (called from `store.fixture_default`).

- Folders at depth: Checkout › Payments › Cards › Visa, so a search opened in Checkout must reach
  C-16 three levels down; C-15 moves to Cards and C-16 to Visa (the Payments subtree still holds
  C-10 to C-19).
- A top folder "Legal" whose policy asks for acceptance: a proposal there waits in the Queue.
- More tags, so the six most used are a real choice: `smoke` (40), `regression` (30), `payments` (10),
  `mobile` (8), `cart` (5), `a11y` (3), `slow` (2), `legacy` (1), and `nightly` (none).
- The side tables of this part: which folders ask for acceptance, and which version an adopted
  proposal made.
"""

SIDE_TABLES = """
CREATE TABLE IF NOT EXISTS folder_policies (folder_id TEXT PRIMARY KEY, needs_acceptance INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS proposal_versions (proposal_id TEXT PRIMARY KEY, case_id TEXT NOT NULL,
    version INTEGER NOT NULL, fields TEXT NOT NULL);
"""

TAGS = [
    ("regression", range(1, 31)),
    ("payments", range(10, 20)),
    ("mobile", range(41, 49)),
    ("cart", range(1, 6)),
    ("a11y", range(60, 63)),
    ("slow", range(100, 102)),
    ("legacy", range(110, 111)),
]


def load(s) -> None:
    db = s.db
    for statement in SIDE_TABLES.strip().split(";"):
        if statement.strip():
            db.execute(statement)
    case = {r["number"]: r["id"] for r in db.execute("SELECT id, number FROM cases WHERE project = 'shop'")}
    payments = db.execute("SELECT id FROM folders WHERE project = 'shop' AND name = 'Payments'").fetchone()["id"]
    cards, visa, legal = s.new_id("f"), s.new_id("f"), s.new_id("f")
    db.execute("INSERT INTO folders VALUES (?, 'shop', 'Cards', ?, 0, 1)", (cards, payments))
    db.execute("INSERT INTO folders VALUES (?, 'shop', 'Visa', ?, 0, 1)", (visa, cards))
    db.execute("INSERT INTO folders VALUES (?, 'shop', 'Legal', NULL, 0, 2)", (legal,))
    db.execute("INSERT INTO folder_policies VALUES (?, 1)", (legal,))
    db.execute("UPDATE cases SET folder_id = ? WHERE id = ?", (cards, case[15]))
    db.execute("UPDATE cases SET folder_id = ? WHERE id = ?", (visa, case[16]))
    for tag, numbers in TAGS:
        db.execute("INSERT INTO tags VALUES ('shop', ?)", (tag,))
        for number in numbers:
            db.execute("INSERT INTO case_tags VALUES (?, ?)", (case[number], tag))
