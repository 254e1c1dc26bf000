import CompanionCore
import CompanionStore
import CompanionTestSupport
import Foundation
import Testing

/// Reading a stored list row by row (`forEachItem`) and decoding it as it is read (`decodedItems`), the
/// path that keeps a long list's peak memory at its decoded values (P7).
@Suite("Offline store: lists read row by row")
struct DecodedItemsTests {
    struct Row: Codable, Sendable, Equatable {
        var id: String
        var title: String
    }

    func filled(_ folder: TemporaryFolder, bodies: [(String, Data)]) async throws -> OfflineStore {
        let store = try OfflineStore(scope: testScope(), location: .directory(folder.url))
        let page = ListPage(items: bodies.map { (id: $0.0, body: $0.1) }, nextCursor: nil)
        _ = try await store.write { transaction throws(StoreError) in
            try transaction.storePage(page, list: "rows", replacing: true)
        }
        return store
    }

    func body(_ id: String) throws -> Data { try JSONEncoder().encode(Row(id: id, title: "Title \(id)")) }

    @Test func decodedItemsMatchWhatItemsReturnsDecoded() async throws {
        let folder = try TemporaryFolder()
        let store = try await filled(folder, bodies: try (0..<120).map { ("r\($0)", try body("r\($0)")) })
        let (all, decoded, window) = try await store.read { transaction throws(StoreError) in
            (
                try transaction.items("rows"), try transaction.decodedItems("rows", as: Row.self),
                try transaction.decodedItems("rows", as: Row.self, offset: 100, limit: 5)
            )
        }
        let expected = try all.map { try JSONDecoder().decode(Row.self, from: $0.body) }
        #expect(decoded == expected)
        #expect(decoded.count == 120)
        #expect(decoded.first == Row(id: "r0", title: "Title r0"))
        #expect(window.map(\.id) == ["r100", "r101", "r102", "r103", "r104"])
    }

    @Test func forEachItemStopsWhenTheBodySaysSo() async throws {
        let folder = try TemporaryFolder()
        let store = try await filled(folder, bodies: try (0..<10).map { ("r\($0)", try body("r\($0)")) })
        let seen = try await store.read { transaction throws(StoreError) in
            var ids: [String] = []
            try transaction.forEachItem("rows") { item throws(StoreError) in
                ids.append(item.id)
                return ids.count < 3
            }
            return ids
        }
        #expect(seen == ["r0", "r1", "r2"])
    }

    @Test func aBodyThatDoesNotDecodeIsAnErrorNamingTheItemAndKeepsTheList() async throws {
        let folder = try TemporaryFolder()
        let store = try await filled(folder, bodies: [("good", try body("good")), ("bad", Data("not json".utf8))])
        await #expect {
            _ = try await store.read { transaction throws(StoreError) in
                try transaction.decodedItems("rows", as: Row.self)
            }
        } throws: { error in
            guard case .encoding(let sentence) = error as? StoreError else { return false }
            return sentence.contains("bad") && sentence.contains("rows")
        }
        let kept = try await store.read { transaction throws(StoreError) in try transaction.items("rows") }
        #expect(kept.map(\.id) == ["good", "bad"], "a failed read loses nothing stored")
    }
}
