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
