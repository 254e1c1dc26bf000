/// The counts under the queue: how many open failures need an explanation, and how many other
/// questions can wait.
///
/// Rule: the counts are the server's, for the whole open queue (M-QUEUE-4). They never come from the
/// loaded page or the chosen kind, so the line stays the same while the list is paged or filtered.
public struct QueueSummary: Sendable, Hashable, Codable {
    /// Open failures.
    public var failures: Int
    /// Every other open question.
    public var canWait: Int

    /// Creates a summary.
    public init(failures: Int, canWait: Int) {
        self.failures = failures
        self.canWait = canWait
    }

    enum CodingKeys: String, CodingKey {
        case failures
        case canWait = "can_wait"
    }

    /// The line under the list, in English (the app ships no other language).
    ///
    /// `1 failure to explain · 3 can wait`: U+00B7 with a space on each side (M-QUEUE-2); a part whose
    /// count is zero is left out; "failure" takes a plural; both zero reads "Nothing needs an answer
    /// today" (M-QUEUE-3).
    public var line: String {
        var parts: [String] = []
        if failures > 0 { parts.append("\(failures) \(failures == 1 ? "failure" : "failures") to explain") }
        if canWait > 0 { parts.append("\(canWait) can wait") }
        return parts.isEmpty ? "Nothing needs an answer today" : parts.joined(separator: " \u{00B7} ")
    }
}
