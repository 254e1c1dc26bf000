import Foundation

/// The id of an event: the bare slug the website takes from an event page's path.
///
/// Rule (P-SCHED-5, P-SCHED-6): the website's pattern is `(?:^|/)events/([^/]+)/index\.html$`, applied to the
/// path; the id is the captured slug (`ai-doom-or-boom`), never `events/<slug>` or a path. So
/// `events/ai-doom-or-boom/index.html` and `/2026/events/ai-doom-or-boom/index.html` give `ai-doom-or-boom`,
/// while `myevents/a/index.html`, `events/a/b/index.html`, `events/a/index.htm`, `events//index.html` and
/// `events/a/index.html?x=1` give nothing (the pattern is anchored at the end, so a query is not stripped).
public enum EventSlug {
    /// The slug in `path`, or `nil` when the path is not an event page.
    public static func extract(from path: String) -> String? {
        let suffix = "/index.html"
        guard path.hasSuffix(suffix) else { return nil }
        let head = path.dropLast(suffix.count)
        guard let lastSlash = head.lastIndex(of: "/") else { return nil }
        let slug = head[head.index(after: lastSlash)...]
        let before = head[..<lastSlash]
        guard !slug.isEmpty, before == "events" || before.hasSuffix("/events") else { return nil }
        return String(slug)
    }

    /// The slug of an event page's full address (`https://promptugal.news/events/x/index.html`): the path only,
    /// so a query or fragment after it does not count against the page. Plain paths go to `extract(from:)`.
    public static func extract(fromURL text: String) -> String? {
        guard text.contains("://"), let components = URLComponents(string: text) else {
            return extract(from: text)
        }
        return extract(from: components.percentEncodedPath)
    }

    /// An incoming id made bare (P-OPEN-5): a bare slug stays, `events/x` and event paths give their slug, and
    /// anything else (empty, holding `/` without being an event page) gives `nil`.
    public static func normalize(_ id: String) -> String? {
        if !id.isEmpty, !id.contains("/"), id != ".", id != ".." { return id }
        if let slug = extract(from: id) { return slug }
        var trimmed = id
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        return extract(from: trimmed + "/index.html")
    }
}
