import Foundation

/// One place in the app a person can go: a native screen, a web page, or a web page with native parts.
///
/// Rule (P-SHELL-1): a destination has an `id`, a `title`, a `symbol`, a `section`, a `kind` and the entry `view`
/// the shell shows. On device `view` names the SwiftUI entry view the glue builds; here it is plain data so the
/// layout decision can be tested without a UI.
public struct Destination: Sendable, Hashable, Identifiable {
    /// Where the screen's content comes from.
    public enum Kind: Sendable, Hashable {
        /// Drawn by the app.
        case native
        /// A web page in a web view.
        case web(URL)
        /// A web page with native parts over the bridge.
        case hybrid

        /// The debug badge text: `native`, `web` or `hybrid` (P-SHELL-4).
        public var badge: String {
            switch self {
            case .native: return "native"
            case .web: return "web"
            case .hybrid: return "hybrid"
            }
        }
    }

    /// The groups of the sidebar, in the order they are shown.
    public enum Section: String, Sendable, Hashable, CaseIterable, Comparable {
        /// What needs the person today.
        case today
        /// The event: schedule, agenda, places.
        case event
        /// The news.
        case news
        /// The team and its agents.
        case team
        /// Vault, keys and settings.
        case settings

        /// The section heading.
        public var title: String {
            switch self {
            case .today: return "Today"
            case .event: return "Event"
            case .news: return "News"
            case .team: return "Team"
            case .settings: return "Settings"
            }
        }

        /// Sections compare by their place in the sidebar.
        public static func < (left: Section, right: Section) -> Bool {
            let order = allCases
            return (order.firstIndex(of: left) ?? 0) < (order.firstIndex(of: right) ?? 0)
        }
    }

    /// The entry view of a destination: its name, which the SwiftUI glue maps to a view.
    public struct EntryView: Sendable, Hashable {
        /// The view's name, such as `ScheduleView`.
        public let name: String

        /// Names an entry view.
        public init(_ name: String) { self.name = name }
    }

    /// A unique id.
    public let id: String
    /// The title shown in the tab bar or sidebar; says PrompTugal's words, never a data source's name.
    public let title: String
    /// An SF Symbols name.
    public let symbol: String
    /// The sidebar group.
    public let section: Section
    /// Native, web or hybrid.
    public let kind: Kind
    /// The entry view.
    public let view: EntryView

    /// Creates a destination.
    public init(id: String, title: String, symbol: String, section: Section, kind: Kind, view: EntryView) {
        self.id = id
        self.title = title
        self.symbol = symbol
        self.section = section
        self.kind = kind
        self.view = view
    }

    /// The badge shown on the screen: its kind's text in debug mode, nothing otherwise (P-SHELL-4).
    public func badge(debugMode: Bool) -> String? { debugMode ? kind.badge : nil }
}

/// Every destination of the app, each id once.
///
/// Rule (P-SHELL-2): registering an id that is already registered is refused, so a tab or a deep link always
/// means exactly one screen.
public struct DestinationRegistry: Sendable, Hashable {
    /// The destinations in the order they were registered.
    public private(set) var destinations: [Destination] = []

    /// An empty registry.
    public init() {}

    /// A registry holding `destinations`; throws on a duplicate id.
    public init(_ destinations: [Destination]) throws(DestinationError) {
        for destination in destinations { try register(destination) }
    }

    /// Adds `destination`; throws when its id is taken.
    public mutating func register(_ destination: Destination) throws(DestinationError) {
        guard !destinations.contains(where: { $0.id == destination.id }) else {
            throw .duplicateID(destination.id)
        }
        destinations.append(destination)
    }

    /// The destination with `id`.
    public subscript(id: String) -> Destination? { destinations.first { $0.id == id } }

    /// The destinations in section order, registration order within a section.
    public var inSectionOrder: [Destination] {
        destinations.enumerated().sorted { left, right in
            left.element.section != right.element.section
                ? left.element.section < right.element.section : left.offset < right.offset
        }.map(\.element)
    }

    /// PrompTugal's destinations; the web ones open pages of `newsSite`.
    public static func promptugal(newsSite: URL = TeamDataBases.production.news) -> DestinationRegistry {
        let agenda = newsSite.appendingPathComponent("agenda")
        let list: [Destination] = [
            Destination(
                id: "today", title: "Today", symbol: "sun.max", section: .today, kind: .native,
                view: .init("TodayView")),
            Destination(
                id: "schedule", title: "My schedule", symbol: "star", section: .event, kind: .hybrid,
                view: .init("ScheduleView")),
            Destination(
                id: "agenda", title: "Agenda", symbol: "calendar", section: .event, kind: .web(agenda),
                view: .init("WebPageView")),
            Destination(
                id: "places", title: "Places", symbol: "map", section: .event, kind: .native,
                view: .init("PlacesView")),
            Destination(
                id: "news", title: "PrompTugal News", symbol: "newspaper", section: .news, kind: .web(newsSite),
                view: .init("WebPageView")),
            Destination(
                id: "newsroom", title: "Newsroom", symbol: "chart.bar", section: .news, kind: .native,
                view: .init("NewsroomView")),
            Destination(
                id: "team", title: "Team", symbol: "person.3", section: .team, kind: .native,
                view: .init("TeamView")),
            Destination(
                id: "agents", title: "Agents", symbol: "cpu", section: .team, kind: .native,
                view: .init("AgentsView")),
            Destination(
                id: "vault", title: "Vault", symbol: "lock", section: .settings, kind: .native,
                view: .init("VaultView")),
            Destination(
                id: "settings", title: "Settings", symbol: "gear", section: .settings, kind: .native,
                view: .init("SettingsView")),
        ]
        return (try? DestinationRegistry(list)) ?? DestinationRegistry()
    }
}

/// Why a destination could not be registered.
public enum DestinationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The id is already registered.
    case duplicateID(String)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .duplicateID(let id):
            return "A destination with the id \"\(id)\" is already registered; give each destination its own id."
        }
    }
}
