import CompanionCore
import Testing

@testable import CompanionLinks

/// The parser and the consent question with an app's own grammar: nothing in them is tied to one app.
struct LinkGrammarTests {
    @Test("A grammar with several patterns matches each and reports the route")
    func customGrammar() throws {
        let grammar = LinkGrammar(
            scheme: "demo", appName: "Demo",
            patterns: [
                LinkPattern(name: "event", segments: [.literal("e"), .identifier("slug")]),
                LinkPattern(name: "pair", segments: [.identifier("a"), .literal("to"), .identifier("b")]),
            ])
        let event = try LinkParser.parse("demo://h.example.com/e/ai-doom/", grammar: grammar)
        #expect(event.route == "event")
        #expect(event.parameters == ["slug": "ai-doom"])
        let pair = try LinkParser.parse("demo://h.example.com/x/to/y", grammar: grammar)
        #expect(pair.route == "pair")
        #expect(pair.path == "/x/to/y")
        #expect(throws: LinkError.unsupportedPath) {
            try LinkParser.parse("demo://h.example.com/x/y", grammar: grammar)
        }
    }

    @Test("The consent question names the app whose grammar the link passed")
    func consentNamesTheApp() throws {
        let grammar = LinkGrammar(
            scheme: "demo", appName: "Demo", patterns: [LinkPattern(name: "event", segments: [.identifier("id")])])
        let link = try LinkParser.parse("demo://h.example.com:9443/x", grammar: grammar)
        let request = LinkConsentRequest(link: link)
        #expect(request.title == "Open this Demo link?")
        #expect(request.message.hasPrefix("This link will connect Demo to h.example.com:9443."))
    }

    @Test("A query or fragment refuses the link by default; a grammar that ignores them opens the path alone")
    func queryAndFragment() throws {
        let patterns = [LinkPattern(name: "item", segments: [.literal("i"), .identifier("id")])]
        let strict = LinkGrammar(scheme: "demo", appName: "Demo", patterns: patterns)
        let lenient = LinkGrammar(scheme: "demo", appName: "Demo", patterns: patterns, queryAndFragment: .ignored)
        for text in ["demo://h.example.com/i/x?y=1", "demo://h.example.com/i/x#f", "demo://h.example.com/i/x/?y#f"] {
            #expect(throws: LinkError.queryOrFragmentNotAllowed) { try LinkParser.parse(text, grammar: strict) }
            let link = try LinkParser.parse(text, grammar: lenient)
            #expect(link.path == "/i/x")
            #expect(link.parameters == ["id": "x"])
        }
        // The path must still match on its own, and an encoded `?` in the id is still refused.
        #expect(throws: LinkError.unsupportedPath) {
            try LinkParser.parse("demo://h.example.com/?i/x", grammar: lenient)
        }
        #expect(throws: LinkError.self) { try LinkParser.parse("demo://h.example.com/i/x%3Fy", grammar: lenient) }
        #expect(throws: LinkError.userInfoNotAllowed) {
            try LinkParser.parse("demo://u@h.example.com/i/x", grammar: lenient)
        }
    }
}
