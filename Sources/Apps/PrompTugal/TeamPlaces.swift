import CompanionCore
import Foundation

/// One place of `places.json`.
public struct TeamPlace: Sendable, Hashable, Identifiable {
    /// A point on the map.
    public struct Coordinates: Sendable, Hashable {
        /// Latitude, degrees.
        public let latitude: Double
        /// Longitude, degrees.
        public let longitude: Double
    }

    /// The id (its name when the file gives none).
    public let id: String
    /// The name.
    public let name: String
    /// Stage, room, booth…
    public let kind: String?
    /// The building or area.
    public let area: String?
    /// Seats, when known.
    public let capacity: Int?
    /// Where it is, when the file gives both numbers.
    public let coordinates: Coordinates?
}

/// `places.json`.
///
/// Rules (P-TEAM-3, P-TEAM-7; no document fixes the field names, so they are read from evidence as well as by
/// name):
/// - Places come from `/api/v1/places.json`, never `place.json`; the list is `places` or `items` (or the body
///   itself), else the largest list of objects in the body. A place needs only a name (`name` or `title`, else its
///   longest plain text member, else its id: `id`, `slug` or `uid`, a number written as its digits); one with
///   neither is skipped and counted (`skips`: "no name").
/// - Coordinates are optional: a place has them only when its latitude (`lat`, `latitude`) and longitude (`lon`,
///   `lng`, `longitude`) are both numbers, on the place itself or in a `geo`, `coordinates`, `position` or
///   `location` object; a JSON `null` is no coordinate.
public struct TeamPlaces: Sendable, Hashable {
    /// The places, in the file's order.
    public let places: [TeamPlace]
    /// Entries skipped because they name no place.
    public let skipped: Int

    /// The places with coordinates.
    public var located: [TeamPlace] { places.filter { $0.coordinates != nil } }

    /// What was skipped, and why (`2 places skipped: no name`); empty when nothing was.
    public var skips: [TeamSkip] { TeamSkip.notes([("places", skipped)], reason: "no name") }

    /// Reads `places.json`.
    public init(json value: JSONValue) throws(TeamDataError) {
        guard let items = TeamFields.list(value, ["places", "items"]) else { throw .missingList("places") }
        var places: [TeamPlace] = []
        var skipped = 0
        for item in items {
            let id = TeamFields.string(item, ["id", "slug", "uid"])
            guard let name = TeamFields.text(item, ["name", "title"]) ?? id else {
                skipped += 1
                continue
            }
            places.append(
                TeamPlace(
                    id: id ?? name, name: name, kind: TeamFields.string(item, ["kind", "type"]),
                    area: TeamFields.string(item, ["area", "building", "venue"]),
                    capacity: TeamFields.integer(item, ["capacity", "seats"]), coordinates: Self.coordinates(item)))
        }
        self.places = places
        self.skipped = skipped
    }

    /// Both numbers of a point on `item` itself, else in one of its point objects.
    static func coordinates(_ item: JSONValue) -> TeamPlace.Coordinates? {
        for holder in [item] + ["geo", "coordinates", "position", "location"].compactMap({ item[$0] }) {
            if let latitude = TeamFields.number(holder, ["lat", "latitude"]),
                let longitude = TeamFields.number(holder, ["lon", "lng", "longitude"])
            {
                return TeamPlace.Coordinates(latitude: latitude, longitude: longitude)
            }
        }
        return nil
    }
}
