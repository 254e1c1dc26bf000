import CompanionLinks

extension LinkGrammar {
    /// Omnigent's grammar, `omnigent://<host[:port]>/c/<id>`, the only form v1 of the app accepts (O-LINK-*).
    public static let omnigent = LinkGrammar(
        scheme: "omnigent", appName: "Omnigent",
        patterns: [LinkPattern(name: "conversation", segments: [.literal("c"), .identifier("id")])])
}
