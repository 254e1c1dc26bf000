import CompanionCore
import Foundation

/// One edit of a proposal as the question's page shows it, step by step (M-QUEUE-7, M-WEB-4): a new case's
/// title, preconditions and steps, or an edited case's changed fields, each before and after.
public enum ShownEdit: Sendable, Hashable {
    /// A new case (`create_case`): its document.
    case newCase(title: String, preconditions: String, steps: [String])
    /// An edited case (`edit_case`): the case, the version the edit starts from, and each changed field.
    case changedCase(number: String?, baseVersion: Int?, changes: [FieldChange])

    /// One changed field: its name and its text before and after (steps one a line, numbered).
    public struct FieldChange: Sendable, Hashable {
        /// The field, such as `title` or `steps`.
        public var field: String
        /// Its text before the edit.
        public var before: String
        /// Its text after the edit.
        public var after: String

        /// A changed field.
        public init(field: String, before: String, after: String) {
            self.field = field
            self.before = before
            self.after = after
        }
    }

    /// The lines a view (or the terminal) shows for the edit, in order.
    public var lines: [String] {
        switch self {
        case .newCase(let title, let preconditions, let steps):
            return ["New case: \(title)", "Preconditions: \(preconditions.isEmpty ? "none" : preconditions)"]
                + steps.map { "  \($0)" }
        case .changedCase(let number, let baseVersion, let changes):
            let head = "Edit of \(number ?? "a case")" + (baseVersion.map { " (from version \($0))" } ?? "")
            return [head] + changes.flatMap { ["\($0.field) before: \($0.before)", "\($0.field) after: \($0.after)"] }
        }
    }

    /// The text of a field's value: a string as it is, steps one a line (`1. action → expected`).
    static func text(_ value: JSONValue?) -> String {
        guard let value, !value.isNull else { return "" }
        if let text = value.stringValue { return text }
        if let steps = value.arrayValue { return stepLines(steps).joined(separator: "\n") }
        return value.jsonString()
    }

    /// Steps as numbered lines: `1. action → expected`, or the action alone without an expected result.
    static func stepLines(_ steps: [JSONValue]) -> [String] {
        steps.enumerated().map { index, step in
            let action = step["action"]?.stringValue ?? text(step)
            let expected = step["expected"]?.stringValue.map { " → \($0)" } ?? ""
            return "\(index + 1). \(action)\(expected)"
        }
    }
}

extension ProposalEdit {
    /// The edit as the page shows it, for the two operations the app shows (`create_case`, `edit_case`); `nil`
    /// for any other (those go to the web app, M-WEB-2).
    public var shown: ShownEdit? {
        switch op {
        case "create_case":
            return .newCase(
                title: document?["title"]?.stringValue ?? "",
                preconditions: document?["preconditions"]?.stringValue ?? "",
                steps: ShownEdit.stepLines(document?["steps"]?.arrayValue ?? []))
        case "edit_case":
            let fields = (changes?.objectValue ?? [:]).sorted { $0.key < $1.key }
            return .changedCase(
                number: caseNumber, baseVersion: baseVersion,
                changes: fields.map { field, pair in
                    ShownEdit.FieldChange(
                        field: field, before: ShownEdit.text(pair[0]), after: ShownEdit.text(pair[1]))
                })
        default:
            return nil
        }
    }
}
