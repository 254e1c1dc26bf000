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
        get {
            let lower = name.lowercased()
            return fields.first(where: { $0.name.lowercased() == lower })?.value
        }
        set {
            let lower = name.lowercased()
            if let index = fields.firstIndex(where: { $0.name.lowercased() == lower }) {
                if let newValue { fields[index].value = newValue } else { fields.remove(at: index) }
            } else if let newValue {
                fields.append((name, newValue))
            }
        }
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
