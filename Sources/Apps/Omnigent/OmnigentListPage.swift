import CompanionCore
import CompanionHTTP
import Foundation

/// One page of an Omnigent list: `{object: "list", data, first_id, last_id, has_more}` (O-ERR-3).
public struct OmnigentListPage<Item: Decodable & Sendable & Hashable>: Decodable, Sendable, Hashable {
    /// The items of this page.
    public var data: [Item]
    /// The id of the first item, the cursor for `before`.
    public var firstID: String?
    /// The id of the last item, the cursor for `after`.
    public var lastID: String?
    /// Whether another page follows.
    public var hasMore: Bool

    enum CodingKeys: String, CodingKey, CaseIterable {
        case data
        case firstID = "first_id"
        case lastID = "last_id"
        case hasMore = "has_more"
    }

    /// Creates a page.
    public init(data: [Item], firstID: String? = nil, lastID: String? = nil, hasMore: Bool = false) {
        self.data = data
        self.firstID = firstID
        self.lastID = lastID
        self.hasMore = hasMore
    }

    /// Reads a page; a page without `has_more` is the last one, as the real app's watch reads it
    /// (`WatchCompanionTests.testGroupsDecodedSessionsByStateAndProject` decodes `{"data": [...]}` alone).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        data = try container.decode([Item].self, forKey: .data)
        firstID = try container.decodeIfPresent(String.self, forKey: .firstID)
        lastID = try container.decodeIfPresent(String.self, forKey: .lastID)
        hasMore = try container.decodeIfPresent(Bool.self, forKey: .hasMore) ?? false
    }
}

extension OmnigentListPage: Encodable where Item: Encodable {
    /// Writes the server's form back (`data`, `first_id`, `last_id`, `has_more`): a page kept in the store and
    /// changed there by a live event reads back as the server sent it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(data, forKey: .data)
        try container.encodeIfPresent(firstID, forKey: .firstID)
        try container.encodeIfPresent(lastID, forKey: .lastID)
        try container.encode(hasMore, forKey: .hasMore)
    }
}

extension OmnigentListPage where Item == Session {
    /// Decodes a page of sessions from a response body: read straight from the bytes (`JSONPullReader`), about
    /// ten times cheaper than `JSONDecoder` on a hundred sessions, to the same value; a body the reader does not
    /// take (not JSON, an unexpected shape or type) is decoded by `JSONDecoding` with `decoder`, so every error
    /// is the one `JSONDecoder` gives. The sessions list request decodes its reply with this.
    public static func decode(_ body: Data, response: HTTPResponse, decoder: JSONDecoder) throws(HTTPError) -> Self {
        if response.mediaType.map(JSONDecoding.isJSON) ?? true, let page = read(body, decoder: decoder) {
            return page
        }
        return try JSONDecoding.decode(Self.self, from: body, response: response, decoder: decoder)
    }

    /// The page read by `JSONPullReader`, or `nil` to leave the body to `JSONDecoder`.
    static func read(_ body: Data, decoder: JSONDecoder) -> Self? {
        body.withUnsafeBytes { raw -> Self? in
            var reader = JSONPullReader(raw.bindMemory(to: UInt8.self))
            var data: [Session]?
            var firstID: String?
            var lastID: String?
            var hasMore: Bool?
            var seen = KeysSeen<UInt8>()
            let complete = reader.readObject { reader, key in
                switch () {
                case _ where key.isKey("data"):
                    guard seen.first(1) else { return false }
                    var sessions: [Session] = []
                    let read = reader.readArray { reader in
                        guard let session = Session(reading: &reader, decoder: decoder) else { return false }
                        sessions.append(session)
                        return true
                    }
                    data = sessions
                    return read
                case _ where key.isKey("first_id"), _ where key.isKey("last_id"):
                    let isFirst = key.isKey("first_id")
                    guard seen.first(isFirst ? 2 : 4) else { return false }
                    if reader.readNull() { return true }
                    guard let value = reader.readString() else { return false }
                    if isFirst { firstID = value } else { lastID = value }
                    return true
                case _ where key.isKey("has_more"):
                    guard seen.first(8) else { return false }
                    hasMore = reader.readBool()
                    return hasMore != nil
                default:
                    return reader.skipValue() != nil
                }
            }
            // A page without `has_more` is left to `JSONDecoder`, which reads it as the last page.
            guard complete, reader.isAtEnd(), let data, let hasMore else { return nil }
            return Self(data: data, firstID: firstID, lastID: lastID, hasMore: hasMore)
        }
    }
}
