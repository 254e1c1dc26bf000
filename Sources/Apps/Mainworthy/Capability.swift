/// What the signed-in person may do in a project, as the server says per project (M-CAP-1).
///
/// Rule: a screen offers an action only when the project grants its capability, and a model sends
/// nothing for an action that is not offered (M-CAP-2..4). There is no capability for inviting people,
/// tokens, the project's policy or notifications: the app has none of those (M-CAP-5).
public enum Capability: String, Sendable, Hashable, Codable, CaseIterable {
    /// Read the project.
    case read
    /// Answer and withdraw (M-CAP-4).
    case decide
    /// Record results, write cases (M-CAP-2).
    case produce
    /// Plan runs (M-CAP-3).
    case plan
}

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
