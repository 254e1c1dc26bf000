import Foundation

/// How wide the screen is, as the shell sees it.
public enum WidthClass: String, Sendable, Hashable, CaseIterable {
    /// iPad and large windows: a sidebar.
    case regular
    /// iPhone: tabs.
    case compact
}

/// Where the shell puts each destination.
///
/// Rules (P-SHELL-3, P-OPEN-21):
/// - Regular width: a sidebar with every destination, grouped by section, sections in their fixed order.
/// - Compact width: at most five tabs. Five or fewer destinations are all tabs; with more, the first four in
///   section order are tabs and a fifth tab, "More", lists the rest.
/// - Either way every destination is reachable exactly once.
public enum ShellLayout: Sendable, Hashable {
    /// One sidebar group.
    public struct SidebarGroup: Sendable, Hashable {
        /// The section.
        public let section: Destination.Section
        /// Its destinations.
        public let destinations: [Destination]
    }

    /// The sidebar of a regular width.
    case sidebar([SidebarGroup])
    /// The tabs of a compact width and what "More" lists (empty when there is no More tab).
    case tabs([Destination], more: [Destination])

    /// The most tabs a compact layout shows, "More" included.
    public static let maximumTabs = 5
    /// The title of the More tab.
    public static let moreTitle = "More"

    /// The layout of `registry` at `width`.
    public static func decide(_ registry: DestinationRegistry, width: WidthClass) -> ShellLayout {
        let ordered = registry.inSectionOrder
        switch width {
        case .regular:
            return .sidebar(
                Destination.Section.allCases.compactMap { section in
                    let members = ordered.filter { $0.section == section }
                    return members.isEmpty ? nil : SidebarGroup(section: section, destinations: members)
                })
        case .compact:
            if ordered.count <= maximumTabs { return .tabs(ordered, more: []) }
            return .tabs(Array(ordered.prefix(maximumTabs - 1)), more: Array(ordered.dropFirst(maximumTabs - 1)))
        }
    }

    /// Every destination the layout reaches, in the order shown (tabs, then More; or the sidebar top to bottom).
    public var reachable: [Destination] {
        switch self {
        case .sidebar(let groups): return groups.flatMap(\.destinations)
        case .tabs(let tabs, let more): return tabs + more
        }
    }

    /// How many tabs the bar shows, the More tab included (0 for a sidebar).
    public var tabCount: Int {
        switch self {
        case .sidebar: return 0
        case .tabs(let tabs, let more): return tabs.count + (more.isEmpty ? 0 : 1)
        }
    }
}
