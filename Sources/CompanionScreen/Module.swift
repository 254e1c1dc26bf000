/// The `CompanionScreen` module. See `docs/architecture.md` for what it is for.
public enum CompanionScreenModule {
    /// The module's name.
    public static let name = "CompanionScreen"
}
