import CompanionCore

extension JSONValue {
    /// Whether two values mean the same JSON: `1` and `1.0` are equal, object member order never matters,
    /// arrays compare element by element in order.
    ///
    /// Rule: a bridge message is compared by meaning, not by its bytes or by how a number happened to be
    /// written, because the page's `JSON.stringify` and the app's encoder spell the same value differently.
    public func semanticallyEquals(_ other: JSONValue) -> Bool {
        switch (self, other) {
        case (.integer, .number), (.number, .integer), (.integer, .integer), (.number, .number):
            if case .integer(let left) = self, case .integer(let right) = other { return left == right }
            guard let left = doubleValue, let right = other.doubleValue else { return false }
            return left == right
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { $0.semanticallyEquals($1) }
        case (.object(let left), .object(let right)):
            guard left.count == right.count else { return false }
            for (key, value) in left {
                guard let match = right[key], value.semanticallyEquals(match) else { return false }
            }
            return true
        default:
            return self == other
        }
    }
}
