#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Documents inside a store transaction.
extension StoreTransaction {
    /// Stores an app document under `name` (merge state with tombstones, settings).
    public func putDocument(_ name: String, body: Data) throws(StoreError) {
        try connection.run(
            "INSERT OR REPLACE INTO documents(name, body, updated_at) VALUES (?, ?, ?)",
            [.text(name), .blob(body), .date(now)])
        note(.document(name))
    }

    /// The document stored under `name`, if any.
    public func document(_ name: String) throws(StoreError) -> Data? {
        try connection.first("SELECT body FROM documents WHERE name = ?", [.text(name)])?.blob("body")
    }
}
