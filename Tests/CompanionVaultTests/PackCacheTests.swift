import CompanionCore
import Foundation
import Testing

@testable import CompanionVault

/// The cache's pack layout: one pack and one index per pull, indexes checked when the cache is opened, damaged packs
/// dropped and their objects fetched again, older `objects/` caches still read.
@Suite struct PackCacheTests {
    let key: VaultKey
    let objects: URL

    init() throws {
        key = try VaultTestSupport.fixtureReadKey()
        objects = try VaultTestSupport.fixtureObjects()
    }

    private static func objectID(_ number: Int) -> String {
        "obj-cas-imm-" + String(format: "%012x", number)
    }

    /// The one pack of a cache holding exactly one.
    private static func onlyPack(_ cache: URL) throws -> (name: String, index: PackIndex) {
        let packs = try VaultCache(root: cache).packIndexes()
        try #require(packs.count == 1, "\(packs.keys.sorted())")
        let (name, index) = try #require(packs.first)
        return (name, index)
    }

    @Test func aPackAndItsIndexReadBackAfterReopening() throws {
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let stored = [
            Self.objectID(1): Data("first".utf8), Self.objectID(2): Data(),
            Self.objectID(3): Data(repeating: 7, count: 70_000),
        ]
        let writer = try VaultCache(root: cache)
        let pack = try PackWriter(cache: writer)
        for (id, data) in stored.sorted(by: { $0.key < $1.key }) { try pack.append(id, data) }
        try pack.append(Self.objectID(1), Data("a second copy is skipped".utf8))
        #expect(pack.object(Self.objectID(3)) == stored[Self.objectID(3)], "readable while the pull runs")
        #expect(writer.objectIDs().isEmpty, "nothing is in the cache before the commit")
        try writer.commit(pack)
        #expect(writer.objectIDs() == Set(stored.keys))

        let reader = try VaultCache(root: cache)
        #expect(reader.droppedPacks.isEmpty)
        #expect(reader.objectIDs() == Set(stored.keys))
        for (id, data) in stored { #expect(reader.object(id) == data, "\(id)") }
        #expect(reader.object(Self.objectID(4)) == nil)
        let (name, index) = try Self.onlyPack(cache)
        #expect(index.packLength == 5 + 70_000)
        #expect(PackIndex.parse(index.encoded()) == index)
        let onDisk = try Data(contentsOf: cache.appendingPathComponent("packs/\(name).idx"))
        #expect(onDisk == index.encoded())
        #expect(String(decoding: onDisk, as: UTF8.self).hasPrefix("companion-pack 1 70005 3\n"))
        #expect(VaultTestSupport.packFiles(cache) == [name + ".idx", name + ".pack"], "no temporary file is left")
    }

    @Test func aWriterThatIsNotCommittedLeavesNothing() throws {
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let writer = try VaultCache(root: cache)
        do {
            let pack = try PackWriter(cache: writer)
            try pack.append(Self.objectID(1), Data("x".utf8))
        }
        try writer.commit(PackWriter(cache: writer))
        #expect(VaultTestSupport.packFiles(cache).isEmpty)
        #expect(try VaultCache(root: cache).objectIDs().isEmpty)
    }

    @Test func indexesThatDoNotHoldAreRefused() throws {
        let index = PackIndex(
            packLength: 10,
            entries: [Self.objectID(1): .init(offset: 0, length: 4), Self.objectID(2): .init(offset: 4, length: 6)])
        let good = index.encoded()
        #expect(PackIndex.parse(good) == index)
        var flipped = good
        flipped[flipped.startIndex + 20] ^= 0x01
        #expect(PackIndex.parse(flipped) == nil, "checksum")
        #expect(PackIndex.parse(good.prefix(good.count - 1)) == nil, "truncated")
        #expect(PackIndex.parse(Data()) == nil)
        let outOfBounds = PackIndex(packLength: 5, entries: [Self.objectID(1): .init(offset: 2, length: 4)])
        #expect(PackIndex.parse(outOfBounds.encoded()) == nil, "an entry past the pack's end")
    }

    @Test func aTruncatedPackIsDroppedItsObjectsFetchedAgainAndOtherPacksKept() async throws {
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let source = CountingSource(LocalFolderVaultSource(root: objects))
        let vault = try SGitVault(key: key, source: source, cache: cache, log: VaultTrafficLog())
        try await vault.pull()
        let everything = VaultTestSupport.cachedObjects(cache)
        #expect(everything.count == 18)
        let (first, _) = try Self.onlyPack(cache)
        // One blob moves to a pack of its own: dropped from the first pack's index, then read (fetched) again.
        let file = try #require(try await vault.files().first { $0.path == "README.md" })
        let bytes = try await vault.read(file)
        try VaultCache(root: cache).discard(file.blobID)
        let moved = try SGitVault(key: key, source: source, cache: cache, log: VaultTrafficLog())
        try await moved.pull()
        #expect(try await moved.read(file) == bytes)
        #expect(try VaultCache(root: cache).packIndexes().count == 2)

        // The first pack loses its tail.
        let packPath = cache.appendingPathComponent("packs/\(first).pack")
        let whole = try Data(contentsOf: packPath)
        try whole.prefix(whole.count - 10).write(to: packPath)

        source.reset()
        let reopened = try SGitVault(key: key, source: source, cache: cache, log: VaultTrafficLog())
        #expect(VaultTestSupport.cachedObjects(cache) == [file.blobID], "the second pack is kept")
        let head = try await reopened.pull()
        #expect(head.message == "remove config")
        let fetched = source.requested.filter { $0.hasPrefix("bare/data/") }
        #expect(fetched.count == 17, "everything but the blob of the kept pack: \(fetched)")
        #expect(!fetched.contains("bare/data/" + file.blobID))
        #expect(VaultTestSupport.cachedObjects(cache) == everything)
        for file in try await reopened.files() { _ = try await reopened.read(file) }

        // And the next pull is back to the ref alone.
        source.reset()
        try await SGitVault(key: key, source: source, cache: cache, log: VaultTrafficLog()).pull()
        #expect(source.requested == [key.refFileID])
    }

    @Test(arguments: ["flipped", "garbage", "empty"])
    func aCorruptedIndexDropsItsPackAndThePullFetchesItAgain(damage: String) async throws {
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let source = CountingSource(LocalFolderVaultSource(root: objects))
        let first = HandedOver()
        try await SGitVault(key: key, source: source, cache: cache, log: VaultTrafficLog()).pull {
            first.receive($0, $1)
        }
        let (name, _) = try Self.onlyPack(cache)
        let indexPath = cache.appendingPathComponent("packs/\(name).idx")
        var index = try Data(contentsOf: indexPath)
        switch damage {
        case "flipped": index[index.startIndex + index.count / 2] ^= 0x04
        case "garbage": index = Data("not an index at all".utf8)
        default: index = Data()
        }
        try index.write(to: indexPath)

        source.reset()
        let reopened = try SGitVault(key: key, source: source, cache: cache, log: VaultTrafficLog())
        #expect(VaultTestSupport.cachedObjects(cache).isEmpty)
        let second = HandedOver()
        try await reopened.pull { second.receive($0, $1) }
        #expect(second.byPath == first.byPath)
        #expect(source.requested.filter { $0.hasPrefix("bare/data/") }.count == 18)
        #expect(VaultTestSupport.cachedObjects(cache).count == 18)
    }

    @Test func aPackWithoutItsIndexIsAnUnfinishedPullAndIsRemoved() async throws {
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        try await SGitVault(
            key: key, source: LocalFolderVaultSource(root: objects), cache: cache, log: VaultTrafficLog()
        ).pull()
        let (name, _) = try Self.onlyPack(cache)
        try FileManager.default.removeItem(at: cache.appendingPathComponent("packs/\(name).idx"))
        _ = try SGitVault(key: key, source: LocalFolderVaultSource(root: objects), cache: cache, log: VaultTrafficLog())
        #expect(VaultTestSupport.packFiles(cache).isEmpty)
    }

    /// A cache written before packs (`objects/<id>`, one file each) is still read, object by object.
    @Test func anOlderObjectsFolderCacheIsStillRead() async throws {
        let packed = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: packed) }
        let reference = try SGitVault(
            key: key, source: LocalFolderVaultSource(root: objects), cache: packed, log: VaultTrafficLog())
        try await reference.pull()
        let older = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: older) }
        let folder = older.appendingPathComponent("objects")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let reader = try VaultCache(root: packed)
        for id in reader.objectIDs() {
            try #require(reader.object(id)).write(to: folder.appendingPathComponent(id))
        }
        try FileManager.default.copyItem(
            at: packed.appendingPathComponent("state.json"), to: older.appendingPathComponent("state.json"))

        let source = CountingSource(LocalFolderVaultSource(root: objects))
        let vault = try SGitVault(key: key, source: source, cache: older, log: VaultTrafficLog())
        try await vault.pull()
        #expect(source.requested == [key.refFileID])
        for file in try await reference.files() {
            #expect(try await vault.read(file.path) == (try await reference.read(file)), "\(file.path)")
        }
        #expect(VaultTestSupport.packFiles(older).isEmpty, "nothing was fetched, so nothing was written")
    }
}
