/// Header fields with case-insensitive names, in the order they were set.
///
/// Rule: a name appears once; setting it again replaces the value (the kit never needs repeated
/// request headers, and a single value keeps redaction and origin checks simple).
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    private var fields: [(name: String, value: String)] = []

    /// Creates empty headers.
    public init() {}

    /// Creates headers from a dictionary (sorted by name, so the order is stable).
    public init(_ dictionary: [String: String]) {
        for (name, value) in dictionary.sorted(by: { $0.key < $1.key }) { self[name] = value }
    }

    /// Creates headers from a literal.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { self[name] = value }
    }

    /// The value for `name`, compared case-insensitively; setting `nil` removes it.
    public subscript(name: String) -> String? {
        get { index(of: name).map { fields[$0].value } }
        set {
            if let index = index(of: name) {
                if let newValue { fields[index].value = newValue } else { fields.remove(at: index) }
            } else if let newValue {
                fields.append((name, newValue))
            }
        }
    }

    /// The position of the field named `name`, compared case-insensitively without making lowercased copies:
    /// every request and response looks headers up several times.
    private func index(of name: String) -> Int? {
        fields.firstIndex { Self.sameName($0.name, name) }
    }

    /// Whether two names are equal ignoring case. Header names are ASCII tokens, compared byte by byte; a name with
    /// other characters falls back to full case folding (`lowercased()`), as the comparison always did.
    static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        let fast = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in asciiSameName(left, right) }
        }
        switch fast {
        case .some(.some(let answer?)): return answer
        default: return lhs.lowercased() == rhs.lowercased()
        }
    }

    /// `true` or `false` when ASCII case folding decides it, `nil` when a byte outside ASCII does.
    ///
    /// The first position where the two differ as ASCII letters settles it: the bytes before it are the same, so
    /// the lowercased forms agree up to there and differ at that character.
    private static func asciiSameName(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool?
    {
        let common = Swift.min(left.count, right.count)
        for index in 0..<common {
            let a = left[index]
            let b = right[index]
            if a == b { continue }
            if a >= 0x80 || b >= 0x80 { return nil }
            if folded(a) != folded(b) { return false }
        }
        if left.count == right.count { return true }
        let rest = left.count > right.count ? left[common...] : right[common...]
        return rest.contains { $0 >= 0x80 } ? nil : false
    }

    /// An ASCII byte with its letter lowercased.
    private static func folded(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// Whether a header named `name` is present.
    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// Removes every header whose name satisfies `predicate`.
    public mutating func removeAll(where predicate: (String) -> Bool) {
        fields.removeAll { predicate($0.name) }
    }

    /// The headers as a dictionary (for `URLRequest` and the journal).
    public var dictionary: [String: String] {
        Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// How many headers there are.
    public var count: Int { fields.count }

    /// Iterates the headers in order.
    public func makeIterator() -> some IteratorProtocol<(name: String, value: String)> { fields.makeIterator() }

    /// Equal when the same names (ignoring case) have the same values.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.normalized == rhs.normalized
    }

    /// Hashes the case-folded names and values.
    public func hash(into hasher: inout Hasher) { hasher.combine(normalized) }

    private var normalized: [String: String] {
        Dictionary(fields.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
    }
}
