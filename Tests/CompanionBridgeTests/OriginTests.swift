import CompanionCore
import Testing

@testable import CompanionBridge

/// The origin allow-list (O-BRIDGE-3, P-BRIDGE-2/3).
struct OriginTests {
    static let allowList = OriginAllowList([try? ServerAddress(parsing: "https://promptugal.news")].compactMap { $0 })

    struct Row: Sendable, CustomTestStringConvertible {
        let main: Bool
        let frame: String
        let page: String?
        let rejection: BridgeRejection?
        var testDescription: String { "\(main ? "main" : "sub") \(frame) \(page ?? "nil")" }
    }

    static let rows: [Row] = [
        Row(main: true, frame: "https://promptugal.news", page: "https://promptugal.news/agenda", rejection: nil),
        Row(main: true, frame: "HTTPS://PrompTugal.news:443", page: "https://promptugal.news/", rejection: nil),
        Row(main: false, frame: "https://promptugal.news", page: "https://promptugal.news/", rejection: .notMainFrame),
        Row(
            main: true, frame: "http://promptugal.news", page: "https://promptugal.news/",
            rejection: .frameOriginNotAllowed("http://promptugal.news")),
        Row(
            main: true, frame: "https://promptugal.news.evil.example", page: "https://promptugal.news/",
            rejection: .frameOriginNotAllowed("https://promptugal.news.evil.example")),
        Row(
            main: true, frame: "https://sub.promptugal.news", page: "https://promptugal.news/",
            rejection: .frameOriginNotAllowed("https://sub.promptugal.news")),
        Row(
            main: true, frame: "https://promptugal.news:8443", page: "https://promptugal.news/",
            rejection: .frameOriginNotAllowed("https://promptugal.news:8443")),
        Row(
            main: true, frame: "promptugal.news", page: "https://promptugal.news/",
            rejection: .frameOriginNotAllowed("promptugal.news")),
        Row(main: true, frame: "null", page: "https://promptugal.news/", rejection: .frameOriginNotAllowed("null")),
        Row(main: true, frame: "", page: "https://promptugal.news/", rejection: .frameOriginNotAllowed("")),
        // Both must match: the page URL too.
        Row(
            main: true, frame: "https://promptugal.news", page: "https://evil.example/x",
            rejection: .pageNotAllowed("https://evil.example")),
        Row(main: true, frame: "https://promptugal.news", page: nil, rejection: .pageNotAllowed("(none)")),
        Row(main: true, frame: "https://promptugal.news", page: "about:blank", rejection: .pageNotAllowed("(none)")),
    ]

    @Test("O-BRIDGE-3, P-BRIDGE-3: main frame only; frame origin and page URL both on the list", arguments: rows)
    func check(_ row: Row) {
        let source = BridgeSource(isMainFrame: row.main, frameOrigin: row.frame, pageURL: row.page)
        #expect(Self.allowList.check(source) == row.rejection)
    }
}
