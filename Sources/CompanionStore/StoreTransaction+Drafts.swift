#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Drafts inside a store transaction.
extension StoreTransaction {
    /// Saves (or replaces) the draft for `subject`.
    public func saveDraft(_ subject: String, body: Data) throws(StoreError) {
        try connection.run(
            "INSERT OR REPLACE INTO drafts(subject, body, updated_at) VALUES (?, ?, ?)",
            [.text(subject), .blob(body), .date(now)])
        note(.draft(subject))
    }

    /// The draft for `subject`, if any.
    public func draft(_ subject: String) throws(StoreError) -> Draft? {
        try connection.first("SELECT * FROM drafts WHERE subject = ?", [.text(subject)]).map { row throws(StoreError) in
            Draft(subject: try row.text("subject"), body: try row.blob("body"), updatedAt: try row.date("updated_at"))
        }
    }

    /// Every draft, newest first.
    public func drafts() throws(StoreError) -> [Draft] {
        try connection.query("SELECT * FROM drafts ORDER BY updated_at DESC").map { row throws(StoreError) in
            Draft(subject: try row.text("subject"), body: try row.blob("body"), updatedAt: try row.date("updated_at"))
        }
    }

    /// Discards the draft for `subject`.
    public func discardDraft(_ subject: String) throws(StoreError) {
        try connection.run("DELETE FROM drafts WHERE subject = ?", [.text(subject)])
        note(.draft(subject))
    }
}
