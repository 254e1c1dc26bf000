import Foundation

/// The news feed (`/feed.xml`) as a screen shows it: its title and its items.
public struct NewsFeed: Sendable, Hashable {
    /// Which kind of feed the site published.
    public enum Format: String, Sendable, Hashable {
        /// RSS 2.0 (`<rss><channel><item>`).
        case rss
        /// Atom (`<feed><entry>`).
        case atom
    }

    /// One story of the feed.
    public struct Item: Sendable, Hashable {
        /// The title.
        public var title: String?
        /// The link: RSS `<link>`, Atom `<link href>` (the `alternate` one first).
        public var link: String?
        /// When it was published or last updated, when the feed says so in a form that reads as a time.
        public var date: Date?
        /// The feed's id for it (RSS `<guid>`, Atom `<id>`).
        public var id: String?

        /// Creates an item.
        public init(title: String? = nil, link: String? = nil, date: Date? = nil, id: String? = nil) {
            self.title = title
            self.link = link
            self.date = date
            self.id = id
        }
    }

    /// RSS or Atom.
    public var format: Format
    /// The feed's title.
    public var title: String?
    /// The items, in the feed's order.
    public var items: [Item]

    /// Creates a feed.
    public init(format: Format, title: String?, items: [Item]) {
        self.format = format
        self.title = title
        self.items = items
    }
}
