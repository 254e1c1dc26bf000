/// The offline store's schema, as versioned migrations.
///
/// Rule: a released migration is never edited; a change is a new version appended here.
enum Schema {
    static let migrations: [Migration] = [
        Migration(
            version: 1,
            sql: """
                CREATE TABLE snapshot_groups(
                    name TEXT PRIMARY KEY, fetched_at REAL NOT NULL, member_count INTEGER NOT NULL,
                    generation INTEGER NOT NULL);
                CREATE TABLE resources(
                    key TEXT PRIMARY KEY, body BLOB NOT NULL, media_type TEXT, etag TEXT, last_modified TEXT,
                    fetched_at REAL NOT NULL,
                    group_name TEXT REFERENCES snapshot_groups(name) ON DELETE CASCADE, member TEXT);
                CREATE INDEX resources_by_group ON resources(group_name, member);
                CREATE TABLE lists(
                    list_key TEXT PRIMARY KEY, next_cursor TEXT, complete INTEGER NOT NULL DEFAULT 0,
                    page_count INTEGER NOT NULL DEFAULT 0, revision TEXT, fetched_at REAL NOT NULL, left_at REAL);
                CREATE TABLE list_items(
                    list_key TEXT NOT NULL REFERENCES lists(list_key) ON DELETE CASCADE,
                    position INTEGER NOT NULL, item_id TEXT NOT NULL, page INTEGER NOT NULL, body BLOB NOT NULL,
                    PRIMARY KEY(list_key, item_id));
                CREATE UNIQUE INDEX list_items_in_order ON list_items(list_key, position);
                CREATE TABLE drafts(subject TEXT PRIMARY KEY, body BLOB NOT NULL, updated_at REAL NOT NULL);
                CREATE TABLE outbox(
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, idempotency_key TEXT NOT NULL UNIQUE,
                    method TEXT NOT NULL, path TEXT NOT NULL, body BLOB, content_type TEXT, subject TEXT,
                    created_at REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
                    state TEXT NOT NULL DEFAULT 'pending', last_error TEXT, server_code TEXT);
                CREATE TABLE documents(name TEXT PRIMARY KEY, body BLOB NOT NULL, updated_at REAL NOT NULL);
                """)
    ]

    /// The tables a storage report counts.
    static let tables = ["resources", "snapshot_groups", "lists", "list_items", "drafts", "outbox", "documents"]
}
