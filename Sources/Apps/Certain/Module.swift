/// The `CertainCore` module. See `docs/architecture.md` for what it is for.
public enum CertainCoreModule {
    /// The module's name.
    public static let name = "CertainCore"
}
