/// A project the person can open, with its capabilities.
public struct Project: Sendable, Hashable, Codable, Identifiable {
    /// The project's key, as used in paths (`shop`).
    public var key: String
    /// The name shown at the top left (M-PROJ-1).
    public var name: String
    /// What the person may do in it. Unknown capability names are ignored.
    public var capabilities: Set<Capability>

    /// The key.
    public var id: String { key }

    /// Creates a project.
    public init(key: String, name: String, capabilities: Set<Capability>) {
        self.key = key
        self.name = name
        self.capabilities = capabilities
    }

    /// Whether the person holds `capability` here.
    public func allows(_ capability: Capability) -> Bool { capabilities.contains(capability) }

    enum CodingKeys: String, CodingKey {
        case key, name, capabilities
    }

    /// Decodes a project, skipping capability names this app does not know.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        name = try container.decode(String.self, forKey: .name)
        let names = try container.decode([String].self, forKey: .capabilities)
        capabilities = Set(names.compactMap(Capability.init(rawValue:)))
    }

    /// Encodes the project, capabilities sorted.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(name, forKey: .name)
        try container.encode(capabilities.map(\.rawValue).sorted(), forKey: .capabilities)
    }
}
