import CompanionLinks

extension LinkGrammar {
    /// Omnigent's grammar, `omnigent://<host[:port]>/c/<id>`, the only form v1 of the app accepts (O-LINK-*).
    /// A query or fragment after the path is ignored, as the real app ignores it: the link opens its
    /// conversation, and nothing of them reaches the page.
    public static let omnigent = LinkGrammar(
        scheme: "omnigent", appName: "Omnigent",
        patterns: [LinkPattern(name: "conversation", segments: [.literal("c"), .identifier("id")])],
        queryAndFragment: .ignored)
}
