/// The `AllauthAdapter` module. See `docs/architecture.md` for what it is for.
public enum AllauthAdapterModule {
    /// The module's name.
    public static let name = "AllauthAdapter"
}
