/// What the case editor warns about before Save, exactly as the server refuses it.
///
/// Rules (M-EDIT-3..6, O-16):
/// - Lengths are UTF-16 code units, as the server counts them: `😀` is 2, a precomposed `é` is 1, and
///   `e` + a combining accent is 2. The title may have 300, the optional reason 500. Preconditions, step
///   text and the number of steps have no limit.
/// - Whitespace is Unicode White_Space, NBSP included. A title that is empty or only whitespace, or has
///   leading or trailing whitespace, a line break or a tab; a step action that is empty or only
///   whitespace; an expected result, preconditions or reason that is whitespace only but not empty; a
///   reason with leading or trailing whitespace: each is a warning, and Save stays disabled while any is.
public enum EditorWarning: Sendable, Hashable, CustomStringConvertible {
    /// The title is empty or only whitespace.
    case titleEmpty
    /// The title has more than 300 units (how many it has).
    case titleTooLong(units: Int)
    /// The title has a line break.
    case titleLineBreak
    /// The title has a tab.
    case titleTab
    /// The title starts with whitespace.
    case titleLeadingWhitespace
    /// The title ends with whitespace.
    case titleTrailingWhitespace
    /// The preconditions are whitespace only.
    case preconditionsWhitespaceOnly
    /// Step `step` (1-based) has no action.
    case actionEmpty(step: Int)
    /// Step `step`'s expected result is whitespace only.
    case expectedWhitespaceOnly(step: Int)
    /// The reason has more than 500 units.
    case reasonTooLong(units: Int)
    /// The reason is whitespace only.
    case reasonWhitespaceOnly
    /// The reason starts with whitespace.
    case reasonLeadingWhitespace
    /// The reason ends with whitespace.
    case reasonTrailingWhitespace

    /// The title's limit in UTF-16 units.
    public static let titleLimit = 300
    /// The reason's limit in UTF-16 units.
    public static let reasonLimit = 500

    /// The field the server names for the same problem (`title`, `steps.0.action`, …).
    public var field: String {
        switch self {
        case .titleEmpty, .titleTooLong, .titleLineBreak, .titleTab, .titleLeadingWhitespace,
            .titleTrailingWhitespace:
            return "title"
        case .preconditionsWhitespaceOnly: return "preconditions"
        case .actionEmpty(let step): return "steps.\(step - 1).action"
        case .expectedWhitespaceOnly(let step): return "steps.\(step - 1).expected"
        case .reasonTooLong, .reasonWhitespaceOnly, .reasonLeadingWhitespace, .reasonTrailingWhitespace:
            return "reason"
        }
    }

    /// The sentence shown under the field.
    public var description: String {
        switch self {
        case .titleEmpty: return "Give the case a title."
        case .titleTooLong(let units):
            return "The title has \(units) UTF-16 units; at most \(Self.titleLimit) fit."
        case .titleLineBreak: return "The title has a line break."
        case .titleTab: return "The title has a tab."
        case .titleLeadingWhitespace: return "The title starts with a space or other whitespace."
        case .titleTrailingWhitespace: return "The title ends with a space or other whitespace."
        case .preconditionsWhitespaceOnly: return "The preconditions are only whitespace: clear them or write some."
        case .actionEmpty(let step): return "Step \(step) has no action."
        case .expectedWhitespaceOnly(let step):
            return "The expected result of step \(step) is only whitespace: clear it or write one."
        case .reasonTooLong(let units):
            return "The reason has \(units) UTF-16 units; at most \(Self.reasonLimit) fit."
        case .reasonWhitespaceOnly: return "The reason is only whitespace: clear it or write one."
        case .reasonLeadingWhitespace: return "The reason starts with a space or other whitespace."
        case .reasonTrailingWhitespace: return "The reason ends with a space or other whitespace."
        }
    }

    /// Every warning for `document` and `reason`, in the editor's order.
    public static func check(_ document: CaseDocument, reason: String) -> [EditorWarning] {
        var warnings: [EditorWarning] = []
        let title = document.title
        if title.isOnlyWhiteSpace {
            warnings.append(.titleEmpty)
        } else {
            if title.utf16.count > titleLimit { warnings.append(.titleTooLong(units: title.utf16.count)) }
            if title.unicodeScalars.contains(where: \.isLineBreak) { warnings.append(.titleLineBreak) }
            if title.unicodeScalars.contains("\t") { warnings.append(.titleTab) }
            if title.unicodeScalars.first?.properties.isWhitespace == true {
                warnings.append(.titleLeadingWhitespace)
            }
            if title.unicodeScalars.last?.properties.isWhitespace == true {
                warnings.append(.titleTrailingWhitespace)
            }
        }
        if !document.preconditions.isEmpty, document.preconditions.isOnlyWhiteSpace {
            warnings.append(.preconditionsWhitespaceOnly)
        }
        for (index, step) in document.steps.enumerated() {
            if step.action.isOnlyWhiteSpace { warnings.append(.actionEmpty(step: index + 1)) }
            if let expected = step.expected, !expected.isEmpty, expected.isOnlyWhiteSpace {
                warnings.append(.expectedWhitespaceOnly(step: index + 1))
            }
        }
        if !reason.isEmpty {
            if reason.isOnlyWhiteSpace {
                warnings.append(.reasonWhitespaceOnly)
            } else {
                if reason.utf16.count > reasonLimit { warnings.append(.reasonTooLong(units: reason.utf16.count)) }
                if reason.unicodeScalars.first?.properties.isWhitespace == true {
                    warnings.append(.reasonLeadingWhitespace)
                }
                if reason.unicodeScalars.last?.properties.isWhitespace == true {
                    warnings.append(.reasonTrailingWhitespace)
                }
            }
        }
        return warnings
    }
}

extension String {
    /// Empty, or only Unicode White_Space (NBSP included).
    var isOnlyWhiteSpace: Bool { unicodeScalars.allSatisfy(\.properties.isWhitespace) }
}

extension Unicode.Scalar {
    /// A line break: LF, VT, FF, CR, NEL, LINE SEPARATOR or PARAGRAPH SEPARATOR.
    var isLineBreak: Bool {
        switch value {
        case 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029: return true
        default: return false
        }
    }
}
