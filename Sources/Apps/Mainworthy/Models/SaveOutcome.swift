import Foundation

/// Where a Save ended, as the editor says it (M-SAVE-1..5, M-DRAFT-5).
public enum SaveOutcome: Sendable, Hashable {
    /// Adopted, read back as typed: the saved version opens and the draft is gone.
    case adopted(caseID: String, version: Int)
    /// Adopted, but the saved version differs from what was typed: the draft is kept.
    case adoptedButDifferent(caseID: String, version: Int, fields: [String])
    /// Adopted, but the saved version could not be read: the draft is kept.
    case adoptedButUnread(caseID: String, version: Int, problem: String)
    /// The proposal waits in the Queue: the draft is gone (O-17).
    case waiting(questionID: String?)
    /// Another edit changes the same fields: resolve it in the web app; the draft is kept.
    case overlap(fields: [String], with: String?, questionID: String?)
    /// The server refused (422, 409): its sentence word for word and the fields it named; the draft is
    /// kept.
    case refused(message: String, fields: [String: String])
    /// The reply was lost: it may or may not be saved; Retry sends the same command.
    case unconfirmed(String)
    /// Nothing was sent, or another failure: the draft is kept.
    case failed(String)

    /// Whether the draft stays.
    public var keepsDraft: Bool {
        switch self {
        case .adopted, .waiting: return false
        default: return true
        }
    }

    /// The sentence the editor shows.
    public var sentence: String {
        switch self {
        case .adopted(_, let version):
            return "Saved as version \(version)."
        case .adoptedButDifferent(_, let version, let fields):
            return
                "Saved as version \(version), but the saved case differs from what you typed (\(Self.list(fields))). Your draft is kept."
        case .adoptedButUnread(_, let version, let problem):
            return "Saved as version \(version), but it could not be read back: \(problem) Your draft is kept."
        case .waiting:
            return "Your proposal waits in the Queue for acceptance."
        case .overlap(let fields, let other, _):
            let by = other.map { " (proposal \($0))" } ?? ""
            return
                "Another edit\(by) also changes the \(Self.list(fields)). Resolve the proposal in the web app. Your draft is kept."
        case .refused(let message, let fields):
            if fields.isEmpty { return message }
            let named = fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            return "\(message) (\(named))"
        case .unconfirmed(let sentence), .failed(let sentence):
            return sentence
        }
    }

    static func list(_ fields: [String]) -> String {
        switch fields.count {
        case 0: return "same fields"
        case 1: return fields[0]
        default: return fields.dropLast().joined(separator: ", ") + " and " + (fields.last ?? "")
        }
    }
}
