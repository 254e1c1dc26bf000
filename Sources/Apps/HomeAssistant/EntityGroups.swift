import CompanionCore
import Foundation

/// A titled group of entities on a screen: one area, or one domain.
public struct EntityGroup: Sendable, Hashable, Identifiable {
    /// The area id (empty for "Unassigned") or the domain.
    public var id: String
    /// The title shown: the area's name, "Unassigned", or the domain.
    public var title: String
    /// The entities, by name, then by id.
    public var entities: [EntityState]

    /// Creates a group.
    public init(id: String, title: String, entities: [EntityState]) {
        self.id = id
        self.title = title
        self.entities = entities
    }
}

/// What to list: every entity, or those of one area and/or one domain.
public struct EntityFilter: Sendable, Hashable {
    /// An area id or name (case-insensitive), or `nil` for every area.
    public var area: String?
    /// A domain, or `nil` for every domain.
    public var domain: String?

    /// Creates a filter.
    public init(area: String? = nil, domain: String? = nil) {
        self.area = area
        self.domain = domain
    }
}

/// One entity with what its detail screen shows beside it.
public struct EntityDetail: Sendable, Hashable {
    /// The entity.
    public var entity: EntityState
    /// Its area's name (H-ENT-14), if any.
    public var area: String?
    /// Its main action (H-ACT-8, H-ACT-9), if any.
    public var mainAction: ServiceCall?

    /// Creates a detail.
    public init(entity: EntityState, area: String?, mainAction: ServiceCall?) {
        self.entity = entity
        self.area = area
        self.mainAction = mainAction
    }
}

extension StoredHome {
    /// The entities grouped by area (H-ENT-14): areas by name, "Unassigned" last; hidden, `config` and
    /// `diagnostic` entities left out of every area group.
    public func byArea(_ filter: EntityFilter = EntityFilter()) -> [EntityGroup] {
        let names = Dictionary(areas.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        var grouped: [String: [EntityState]] = [:]
        for entity in entities where placement.showsInAreas(entity.entityID) && filter.admits(entity.domain) {
            grouped[placement.areaID(of: entity.entityID) ?? "", default: []].append(entity)
        }
        var groups = grouped.map { id, members in
            EntityGroup(id: id, title: id.isEmpty ? "Unassigned" : names[id] ?? id, entities: Self.ordered(members))
        }
        if let area = filter.area?.lowercased() {
            groups = groups.filter { $0.id.lowercased() == area || $0.title.lowercased() == area }
        }
        return groups.sorted { lhs, rhs in
            if lhs.id.isEmpty != rhs.id.isEmpty { return rhs.id.isEmpty }
            return (lhs.title.lowercased(), lhs.id) < (rhs.title.lowercased(), rhs.id)
        }
    }

    /// The entities grouped by domain (every entity, hidden ones included: H-ENT-14), domains in order.
    public func byDomain(_ filter: EntityFilter = EntityFilter()) -> [EntityGroup] {
        let areaID = filter.area.flatMap { wanted in
            areas.first { $0.id.lowercased() == wanted.lowercased() || $0.name.lowercased() == wanted.lowercased() }?
                .id ?? wanted
        }
        var grouped: [String: [EntityState]] = [:]
        for entity in entities where filter.admits(entity.domain) {
            if let areaID, placement.areaID(of: entity.entityID) != areaID { continue }
            grouped[entity.domain, default: []].append(entity)
        }
        return grouped.map { EntityGroup(id: $0, title: $0, entities: Self.ordered($1)) }.sorted { $0.id < $1.id }
    }

    /// The detail of `entityID`, or `nil` when no such entity is stored.
    public func detail(of entityID: String) -> EntityDetail? {
        guard let entity = entities.first(where: { $0.entityID == entityID }) else { return nil }
        let area = placement.areaID(of: entityID).flatMap { id in areas.first { $0.id == id }?.name }
        return EntityDetail(entity: entity, area: area, mainAction: ServiceCall.mainAction(for: entity))
    }

    /// The area name of `entityID`, if placed.
    public func areaName(of entityID: String) -> String? {
        placement.areaID(of: entityID).flatMap { id in areas.first { $0.id == id }?.name }
    }

    static func ordered(_ entities: [EntityState]) -> [EntityState] {
        entities.sorted { ($0.name.lowercased(), $0.entityID) < ($1.name.lowercased(), $1.entityID) }
    }
}

extension EntityFilter {
    func admits(_ domain: String) -> Bool { self.domain.map { $0 == domain } ?? true }
}
