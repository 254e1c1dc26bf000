/// The `PrompTugalCore` module. See `docs/architecture.md` for what it is for.
public enum PrompTugalCoreModule {
    /// The module's name.
    public static let name = "PrompTugalCore"
}
