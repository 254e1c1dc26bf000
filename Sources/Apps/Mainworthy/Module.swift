/// The `MainworthyCore` module. See `docs/architecture.md` for what it is for.
public enum MainworthyCoreModule {
    /// The module's name.
    public static let name = "MainworthyCore"
}
