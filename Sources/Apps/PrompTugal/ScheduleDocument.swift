import CompanionCore
import Foundation

/// One pick: an event's bare slug and when the person picked it.
public struct SchedulePick: Sendable, Hashable, Identifiable {
    /// The event's bare slug, such as `ai-doom-or-boom` (P-SCHED-6).
    public let id: String
    /// When it was picked.
    public let at: Date

    /// Creates a pick.
    public init(id: String, at: Date) {
        self.id = id
        self.at = at
    }
}

/// The schedule as the website stores it under `nr.schedule.v1`: `{"v": 1, "picks": [{"id", "at"}]}`.
///
/// Rules:
/// - Written with exactly the members `v` and `picks`, each pick with exactly `id` and `at`; nothing else, no
///   removal records (P-SCHED-1, P-OPEN-1). `at` is written as `toISOString()` writes it (P-SCHED-2).
/// - Read strictly: `v` must be 1 and `picks` an array, or the whole document is refused and nothing changes
///   (P-OPEN-3). A pick without a usable id or time is skipped and counted, and the rest are kept (P-OPEN-4).
///   Ids that are event paths are made bare (P-OPEN-5). An id listed twice keeps its later time (P-OPEN-2).
public struct ScheduleDocument: Sendable, Hashable {
    /// The wire version this app reads and writes.
    public static let version = 1

    /// The picks, one per id.
    public var picks: [SchedulePick]
    /// How many entries reading skipped (always 0 for a document made in the app).
    public var skipped: Int

    /// Creates a document; an id listed twice keeps its later time.
    public init(picks: [SchedulePick], skipped: Int = 0) {
        var latest: [String: SchedulePick] = [:]
        var order: [String] = []
        for pick in picks {
            if let held = latest[pick.id] {
                if pick.at > held.at { latest[pick.id] = pick }
            } else {
                latest[pick.id] = pick
                order.append(pick.id)
            }
        }
        self.picks = order.compactMap { latest[$0] }
        self.skipped = skipped
    }

    /// A document without picks.
    public static let empty = ScheduleDocument(picks: [])

    /// The wire value `{v: 1, picks: [...]}`.
    public var json: JSONValue {
        .object([
            "v": .integer(Int64(Self.version)),
            "picks": .array(
                picks.map { pick in
                    .object(["id": .string(pick.id), "at": .string((try? ScheduleTime.write(pick.at)) ?? "")])
                }),
        ])
    }

    /// The wire text in the member order the website's `JSON.stringify` writes:
    /// `{"v":1,"picks":[{"id":"…","at":"…"}]}`.
    public var jsonText: String {
        func quoted(_ text: String) -> String { JSONValue.string(text).jsonString() }
        let entries = picks.map { pick in
            "{\"id\":\(quoted(pick.id)),\"at\":\(quoted((try? ScheduleTime.write(pick.at)) ?? ""))}"
        }
        return "{\"v\":\(Self.version),\"picks\":[\(entries.joined(separator: ","))]}"
    }

    /// Reads a wire value by the rules on the type.
    public init(json value: JSONValue) throws(ScheduleDocumentError) {
        guard case .object(let members) = value else { throw .notADocument }
        guard let version = members["v"], version.intValue == Int64(Self.version), version.doubleValue == 1 else {
            throw .unsupportedVersion(members["v"].map { $0.jsonString() } ?? "missing")
        }
        guard case .array(let entries) = members["picks"] ?? .null else { throw .picksNotAnArray }
        var picks: [SchedulePick] = []
        var skipped = 0
        for entry in entries {
            guard case .string(let rawID) = entry["id"] ?? .null, let id = EventSlug.normalize(rawID),
                let atValue = entry["at"], let at = try? ScheduleTime.read(atValue)
            else {
                skipped += 1
                continue
            }
            picks.append(SchedulePick(id: id, at: at))
        }
        self.init(picks: picks, skipped: skipped)
    }

    /// Reads wire text (UTF-8 JSON).
    public init(data: Data) throws(ScheduleDocumentError) {
        guard let value = JSONValue(data: data) else { throw .notJSON }
        try self.init(json: value)
    }
}

/// Why a schedule document was refused as a whole.
public enum ScheduleDocumentError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The text is not JSON.
    case notJSON
    /// The JSON is not an object.
    case notADocument
    /// `v` is missing or not 1 (the value as JSON text).
    case unsupportedVersion(String)
    /// `picks` is missing or not an array.
    case picksNotAnArray

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .notJSON: return "The schedule is not JSON; nothing was changed."
        case .notADocument: return "The schedule is not a {\"v\": 1, \"picks\": [...]} object; nothing was changed."
        case .unsupportedVersion(let version):
            let shown = version.count > 20 ? String(version.prefix(20)) + "…" : version
            return "The schedule has version \(shown); this app reads version 1 only, so nothing was changed."
        case .picksNotAnArray: return "The schedule's picks are not a list; nothing was changed."
        }
    }

    /// The same sentence.
    public var errorDescription: String? { description }
}
