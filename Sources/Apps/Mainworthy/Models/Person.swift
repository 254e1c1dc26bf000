/// Someone named in a reply: who decided, who recorded a result.
public struct Person: Sendable, Hashable, Codable {
    /// The server's id, when the reply carries it.
    public var id: String?
    /// The name people know them by.
    public var name: String

    /// Creates a person.
    public init(id: String? = nil, name: String) {
        self.id = id
        self.name = name
    }
}
