import CompanionCore
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads the news feed: RSS 2.0 and Atom, with Foundation's `XMLParser`.
///
/// Rules (seed §6, P-TEAM-7):
/// - RSS: the channel's `<title>`, and per `<item>` its `<title>`, `<link>`, `<pubDate>` (RFC 822, else ISO 8601)
///   and `<guid>`. Atom: the feed's `<title>`, and per `<entry>` its `<title>`, `<link href>` (`rel="alternate"`
///   or no `rel` first), `<updated>` or `<published>` (ISO 8601) and `<id>`. Names are matched without their
///   namespace prefix.
/// - A date that does not read as a time leaves the item without one; the item stays.
/// - A body that is not well-formed XML, or whose root is neither `<rss>` nor `<feed>`, is an error
///   (`FeedError`): the caller keeps its last good copy. External entities are never resolved.
/// - The body must be UTF-8, as the sites publish it; any other bytes are refused before the parser sees them
///   (`notText`). Foundation's XMLParser on Linux traps on an element name libxml2 hands it after recovering from
///   invalid UTF-8 (found by `FuzzTeamData`), so no such body reaches it.
public enum FeedReader {
    /// The feed in `data`.
    public static func read(_ data: Data) throws(FeedError) -> NewsFeed {
        guard String(data: data, encoding: .utf8) != nil else { throw .notText }
        let collector = FeedCollector()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.delegate = collector
        guard parser.parse(), collector.failure == nil else {
            throw .notXML(line: parser.lineNumber)
        }
        guard let format = collector.format else { throw .notAFeed(root: collector.root ?? "") }
        return NewsFeed(format: format, title: collector.feedTitle, items: collector.items)
    }

    /// A date as feeds write it: RFC 822 (`Tue, 10 Nov 2026 09:00:00 +0000`, also with `GMT` or without the day
    /// name), or ISO 8601 with an offset.
    public static func date(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let date = try? Timestamp.parse(trimmed) { return date }
        for format in rfc822Formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return date }
        }
        return nil
    }

    static let rfc822Formats = [
        "EEE, d MMM yyyy HH:mm:ss Z", "EEE, d MMM yyyy HH:mm:ss zzz", "d MMM yyyy HH:mm:ss Z",
        "d MMM yyyy HH:mm:ss zzz",
        "EEE, d MMM yyyy HH:mm Z", "EEE, d MMM yyyy HH:mm zzz",
    ]
}

/// Why a feed body was refused.
public enum FeedError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not well-formed XML (the line where the parser stopped).
    case notXML(line: Int)
    /// XML, but neither RSS (`<rss>`) nor Atom (`<feed>`); the root element's name.
    case notAFeed(root: String)
    /// Not UTF-8 text.
    case notText

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .notXML(let line):
            return "The news feed is not XML (it breaks at line \(line)); the last good copy is kept."
        case .notAFeed(let root):
            let shown = root.count > 40 ? String(root.prefix(40)) + "…" : root
            return "The news feed is XML but not RSS or Atom (its root is <\(shown)>); the last good copy is kept."
        case .notText:
            return "The news feed is not UTF-8 text; the last good copy is kept."
        }
    }
}

/// The parser's delegate: collects the feed's title and items as the elements go by.
///
/// `XMLParser` calls it on the thread that runs `parse()`, which is the caller's, one call at a time; the
/// collector never leaves `FeedReader.read`.
final class FeedCollector: NSObject, XMLParserDelegate {
    var root: String?
    var format: NewsFeed.Format?
    var feedTitle: String?
    var items: [NewsFeed.Item] = []
    var failure: String?

    private var path: [String] = []
    private var text = ""
    private var current: NewsFeed.Item?
    private var alternate: String?
    private var otherLink: String?

    /// `atom:link` → `link`.
    static func local(_ name: String) -> String {
        name.split(separator: ":").last.map { String($0).lowercased() } ?? name.lowercased()
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let name = Self.local(elementName)
        if root == nil {
            root = elementName
            format = name == "rss" ? .rss : name == "feed" ? .atom : nil
        }
        path.append(name)
        text = ""
        if (format == .rss && name == "item") || (format == .atom && name == "entry") {
            current = NewsFeed.Item()
            alternate = nil
            otherLink = nil
        }
        if format == .atom, name == "link", current != nil, let href = attributes["href"], !href.isEmpty {
            let rel = attributes["rel"] ?? "alternate"
            if rel == "alternate" {
                if alternate == nil { alternate = href }
            } else if otherLink == nil {
                otherLink = href
            }
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, foundCDATA block: Data) { text += String(decoding: block, as: UTF8.self) }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        let name = Self.local(elementName)
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        text = ""
        defer { path.removeLast() }
        let parent = path.count >= 2 ? path[path.count - 2] : ""
        guard let format else { return }
        if var item = current {
            let itemElement = format == .rss ? "item" : "entry"
            if name == itemElement {
                if format == .atom { item.link = alternate ?? otherLink }
                items.append(item)
                current = nil
                return
            }
            guard parent == itemElement, !value.isEmpty else { return }
            switch (format, name) {
            case (_, "title"): item.title = value
            case (.rss, "link"): item.link = value
            case (.rss, "pubdate"), (.rss, "date"): item.date = item.date ?? FeedReader.date(value)
            case (.rss, "guid"), (.atom, "id"): item.id = value
            case (.atom, "updated"): item.date = FeedReader.date(value) ?? item.date
            case (.atom, "published"): item.date = item.date ?? FeedReader.date(value)
            default: break
            }
            current = item
            return
        }
        let feedElement = format == .rss ? "channel" : "feed"
        if name == "title", parent == feedElement, feedTitle == nil, !value.isEmpty { feedTitle = value }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        failure = failure ?? "\(parseError)"
    }
}
