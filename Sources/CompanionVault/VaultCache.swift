import CompanionCore
import Foundation

/// The on-disk cache of one vault: verified stored objects, and a small state file.
///
/// Layout (folders 0700, files 0600; nothing in it is a key or plaintext):
/// - `packs/<name>.pack`: the stored bytes of the objects one pull fetched, back to back, exactly as served and
///   checked against their content address before they were written. A pull writes one pack, append-only.
/// - `packs/<name>.idx`: that pack's index, written once when the pull ends (see `PackIndex`): the pack's length
///   and each object's offset and length, closed by a SHA-256 of the index itself.
/// - `objects/<object id>`: one file per object, as caches were written before packs. Still read (and a bad one
///   dropped), never written: a pull stores every new object in its pack.
/// - `state.json`: the last pulled heads by ref file id, the commits whose whole history is cached, and the server
///   packs already read.
///
/// A pull appends to a temporary `packs/.tmp-<name>.pack`; only after every object verified is it renamed and its
/// index written (temporary file, then `rename(2)`), then the state. The index is the commit point: a failed or
/// interrupted pull leaves the cache as it was, and a pack without an index is removed when the cache is next opened.
///
/// The pack is written without `fsync(2)` (flushing 50 MB cost more than the download itself): an index whose
/// checksum or recorded pack length does not match is dropped with its pack when the cache is opened (see
/// `droppedPacks`), and every object is checked against its content address each time it is read, so a torn object
/// is caught, dropped from its index, and fetched again. Only the state file is flushed to disk.
///
/// The indexes of all packs are read once, when the cache is opened, and kept in memory.
final class VaultCache: Sendable {
    struct State: Codable, Sendable, Equatable {
        var version = 1
        var vaultID: String
        var heads: [String: String] = [:]
        var lastRef: String?
        var complete: Set<String> = []
        var packs: Set<String> = []
        /// Set when a damaged pack was dropped: the next pull walks every tree again, even cached ones, since a
        /// cached tree's blobs may have been in the dropped pack.
        var rewalk: Bool?
    }

    /// Where one object's stored bytes are: a pack, an offset and a length.
    struct Location: Sendable, Equatable {
        let pack: String
        let offset: Int
        let length: Int
    }

    /// The indexes of every pack, by pack name, and the resulting object locations.
    private struct Loaded {
        var packs: [String: PackIndex] = [:]
        var locations: [String: Location] = [:]

        mutating func add(_ name: String, _ index: PackIndex) {
            packs[name] = index
            for (id, entry) in index.entries where locations[id] == nil {
                locations[id] = Location(pack: name, offset: entry.offset, length: entry.length)
            }
        }
    }

    let root: URL
    var stateFile: URL { root.appendingPathComponent("state.json") }
    /// `packs/` as a file system path.
    let packsPath: String
    /// `objects/` as a file system path, when that folder (an older cache's layout) exists.
    let legacyPath: String?
    /// Packs whose index or length was found damaged when the cache was opened: they were removed, and their
    /// objects will be fetched again.
    let droppedPacks: [String]
    private let loaded: Locked<Loaded>

    init(root: URL) throws(VaultError) {
        self.root = root
        let packs = root.appendingPathComponent("packs", isDirectory: true)
        self.packsPath = packs.path
        do {
            let privateFolder: [FileAttributeKey: Any] = [.posixPermissions: 0o700]
            try FileManager.default.createDirectory(
                at: root, withIntermediateDirectories: true, attributes: privateFolder)
            try FileManager.default.createDirectory(
                at: packs, withIntermediateDirectories: true, attributes: privateFolder)
        } catch {
            throw .cache(reason: "could not create the cache folder")
        }
        let legacy = root.appendingPathComponent("objects", isDirectory: true).path
        self.legacyPath = FileManager.default.fileExists(atPath: legacy) ? legacy : nil
        // Leftovers of an interrupted pull are unverified-as-a-whole: drop them.
        for folder in [root.path, packsPath] + (legacyPath.map { [$0] } ?? []) {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for name in names where name.hasPrefix("staging-") || name.hasPrefix(".tmp-") {
                try? FileManager.default.removeItem(atPath: folder + "/" + name)
            }
        }
        var state = Loaded()
        var dropped: [String] = []
        let names = (try? FileManager.default.contentsOfDirectory(atPath: packsPath)) ?? []
        let indexed = Set(names.filter { $0.hasSuffix(".idx") }.map { String($0.dropLast(4)) })
        for name in indexed.sorted() {
            let indexPath = packsPath + "/" + name + ".idx"
            let packPath = packsPath + "/" + name + ".pack"
            if let data = FileManager.default.contents(atPath: indexPath), let index = PackIndex.parse(data),
                let size = Self.fileSize(packPath), size == index.packLength
            {
                state.add(name, index)
            } else {
                unlink(indexPath)
                unlink(packPath)
                dropped.append(name)
            }
        }
        // A pack whose index was never written belongs to a pull that did not finish.
        for name in names where name.hasSuffix(".pack") && !indexed.contains(String(name.dropLast(5))) {
            unlink(packsPath + "/" + name)
        }
        self.droppedPacks = dropped
        self.loaded = Locked(state)
    }

    private static func fileSize(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    func loadState(vaultID: String) throws(VaultError) -> State {
        guard let data = try? Data(contentsOf: stateFile) else { return State(vaultID: vaultID) }
        guard let state = try? JSONDecoder().decode(State.self, from: data), state.version == 1 else {
            throw .cache(reason: "the cache state file is unreadable; delete the cache folder")
        }
        guard state.vaultID == vaultID else { throw .cache(reason: "the cache folder belongs to another vault") }
        return state
    }

    func saveState(_ state: State) throws(VaultError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(state) else { throw .cache(reason: "could not encode the state") }
        try Self.atomicWrite(data, to: stateFile.path, in: root.path, flush: true)
    }

    // MARK: Objects

    private func legacyObjectPath(_ id: String) -> String? { legacyPath.map { $0 + "/" + id } }

    /// Whether the cache holds `id` (in a pack, or in an older cache's `objects/`).
    func contains(_ id: String) -> Bool {
        if loaded.withLock({ $0.locations[id] != nil }) { return true }
        guard let path = legacyObjectPath(id) else { return false }
        return access(path, F_OK) == 0
    }

    /// The stored bytes of `id`, unverified (the caller checks the content address), or `nil`.
    func object(_ id: String) -> Data? {
        if let location = loaded.withLock({ $0.locations[id] }) {
            return Self.read(
                path: packsPath + "/" + location.pack + ".pack", at: location.offset, count: location.length)
        }
        // `access(2)` first: failing to open a missing file through `Data(contentsOf:)` costs an error object.
        guard let path = legacyObjectPath(id), access(path, F_OK) == 0 else { return nil }
        return FileManager.default.contents(atPath: path)
    }

    /// Every object id the cache holds.
    func objectIDs() -> Set<String> {
        var ids = Set(loaded.withLock { $0.locations.keys })
        if let legacyPath, let names = try? FileManager.default.contentsOfDirectory(atPath: legacyPath) {
            ids.formUnion(names.filter { VaultFormat.isObjectID($0) })
        }
        return ids
    }

    /// The pack names and their indexes, as loaded or written (for tests and the benchmark).
    func packIndexes() -> [String: PackIndex] { loaded.withLock { $0.packs } }

    /// Drops an object that failed its check on read, so the next read or pull fetches it again: it leaves the
    /// in-memory index, and every pack index naming it is written again without it (a pack left empty is removed).
    func discard(_ id: String) {
        if let path = legacyObjectPath(id) { unlink(path) }
        loaded.withLock { state in
            state.locations[id] = nil
            for (name, var index) in state.packs where index.entries[id] != nil {
                index.entries[id] = nil
                if index.entries.isEmpty {
                    unlink(packsPath + "/" + name + ".idx")
                    unlink(packsPath + "/" + name + ".pack")
                    state.packs[name] = nil
                } else {
                    // If this write fails the entry stays on disk, and is caught by its check again on the next read.
                    try? Self.atomicWrite(
                        index.encoded(), to: packsPath + "/" + name + ".idx", in: packsPath, flush: false)
                    state.packs[name] = index
                }
            }
        }
    }

    /// Writes a verified object straight into the cache, as a pack of one (used by `read` for a blob fetched on
    /// demand).
    func store(_ id: String, _ data: Data) throws(VaultError) {
        let writer = try PackWriter(cache: self)
        try writer.append(id, data)
        try commit(writer)
    }

    /// Makes `writer`'s pack part of the cache: renames it into place, writes its index, and adds it to the
    /// in-memory index. An empty writer leaves nothing behind.
    func commit(_ writer: PackWriter) throws(VaultError) {
        guard let (index, temporary) = try writer.finish() else { return }
        let name = writer.name
        let packPath = packsPath + "/" + name + ".pack"
        guard rename(temporary, packPath) == 0 else {
            unlink(temporary)
            throw .cache(reason: "could not move a pack into the cache")
        }
        do {
            try Self.atomicWrite(index.encoded(), to: packsPath + "/" + name + ".idx", in: packsPath, flush: false)
        } catch {
            unlink(packPath)
            throw error
        }
        loaded.withLock { $0.add(name, index) }
    }

    // MARK: Files

    /// `count` bytes of the file at `path` from `offset`, or `nil` when the file is shorter or unreadable.
    static func read(path: String, at offset: Int, count: Int) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return read(descriptor: descriptor, at: offset, count: count)
    }

    static func read(descriptor: Int32, at offset: Int, count: Int) -> Data? {
        var data = Data(count: count)
        let complete = data.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) -> Bool in
            var done = 0
            while done < count {
                guard let base = raw.baseAddress else { return false }
                let got = pread(descriptor, base + done, count - done, off_t(offset + done))
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { return false }
                done += got
            }
            return true
        }
        return complete ? data : nil
    }

    /// Writes all of `data` to `descriptor` at `offset`.
    static func write(_ data: Data, descriptor: Int32, at offset: Int) -> Bool {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
            var done = 0
            while done < raw.count {
                guard let base = raw.baseAddress else { return false }
                let written = pwrite(descriptor, base + done, raw.count - done, off_t(offset + done))
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return false }
                done += written
            }
            return true
        }
    }

    /// Writes `data` to a temporary file in `folder` (mode 0600), optionally flushed, then renames it to `path`.
    static func atomicWrite(_ data: Data, to path: String, in folder: String, flush: Bool) throws(VaultError) {
        let temporary = folder + "/.tmp-" + UUID().uuidString
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .cache(reason: "could not write to the cache") }
        let written = write(data, descriptor: descriptor, at: 0) && (!flush || fsync(descriptor) == 0)
        guard close(descriptor) == 0, written, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw .cache(reason: "could not write to the cache")
        }
    }
}

/// The index of one pack: the pack's length and, per object id, where its stored bytes are.
///
/// On disk it is text, written once: a header `companion-pack 1 <pack length> <count>`, one line
/// `<object id> <offset> <length>` per object, and a last line `sha256 <hex>` over every byte before it. An index
/// whose checksum, header, count or bounds do not hold is refused as a whole.
struct PackIndex: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        let offset: Int
        let length: Int
    }

    var packLength: Int
    var entries: [String: Entry]

    private static let magic = "companion-pack 1"

    /// The index as stored.
    func encoded() -> Data {
        var text = "\(Self.magic) \(packLength) \(entries.count)\n"
        for (id, entry) in entries.sorted(by: { ($0.value.offset, $0.key) < ($1.value.offset, $1.key) }) {
            text += "\(id) \(entry.offset) \(entry.length)\n"
        }
        var data = Data(text.utf8)
        data.append(contentsOf: Array("sha256 \(VaultHex.encode(VaultCrypto.sha256(data)))\n".utf8))
        return data
    }

    /// Reads a stored index, or `nil` when anything in it does not hold.
    static func parse(_ data: Data) -> PackIndex? {
        let trailerLength = "sha256 ".utf8.count + 64 + 1
        guard data.count > trailerLength else { return nil }
        let body = Data(data.prefix(data.count - trailerLength))
        let trailer = String(decoding: data.suffix(trailerLength), as: UTF8.self)
        guard trailer == "sha256 \(VaultHex.encode(VaultCrypto.sha256(body)))\n" else { return nil }
        let lines = String(decoding: body, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard let header = lines.first, lines.last == "" else { return nil }
        let fields = header.split(separator: " ")
        guard fields.count == 4, "\(fields[0]) \(fields[1])" == magic, let packLength = Int(fields[2]),
            let count = Int(fields[3]), packLength >= 0, count == lines.count - 2
        else { return nil }
        var entries: [String: Entry] = [:]
        entries.reserveCapacity(count)
        for line in lines.dropFirst().dropLast() {
            let parts = line.split(separator: " ")
            guard parts.count == 3, let offset = Int(parts[1]), let length = Int(parts[2]), offset >= 0, length >= 0,
                offset <= packLength - length
            else { return nil }
            let id = String(parts[0])
            guard VaultFormat.isObjectID(id), entries[id] == nil else { return nil }
            entries[id] = Entry(offset: offset, length: length)
        }
        return PackIndex(packLength: packLength, entries: entries)
    }
}

/// Appends verified objects to one new pack while a pull runs; several tasks may append at once.
///
/// The pack lives at a temporary path until `VaultCache.commit(_:)` moves it into place and writes its index; a
/// writer dropped before that removes its file.
final class PackWriter: Sendable {
    private struct Content {
        var descriptor: Int32
        var length = 0
        var entries: [String: PackIndex.Entry] = [:]
        var reserved: Set<String> = []
    }

    /// The pack's name in `packs/` once committed.
    let name: String
    let temporaryPath: String
    private let content: Locked<Content>

    init(cache: VaultCache) throws(VaultError) {
        // A time prefix keeps packs in the order they were written; the UUID keeps two writers apart.
        let stamp = String(UInt64(Date().timeIntervalSince1970 * 1_000), radix: 10)
        name = stamp + "-" + UUID().uuidString.lowercased()
        temporaryPath = cache.packsPath + "/.tmp-" + name + ".pack"
        let descriptor = open(temporaryPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .cache(reason: "could not create a pack in the cache") }
        content = Locked(Content(descriptor: descriptor))
    }

    deinit { abandon() }

    /// Appends `data` as object `id` (an id already appended is skipped).
    func append(_ id: String, _ data: Data) throws(VaultError) {
        let slot: (descriptor: Int32, offset: Int)? = content.withLock { content in
            guard content.descriptor >= 0, content.entries[id] == nil, content.reserved.insert(id).inserted else {
                return nil
            }
            defer { content.length += data.count }
            return (content.descriptor, content.length)
        }
        guard let slot else { return }
        guard VaultCache.write(data, descriptor: slot.descriptor, at: slot.offset) else {
            throw .cache(reason: "could not write to the cache")
        }
        content.withLock { $0.entries[id] = PackIndex.Entry(offset: slot.offset, length: data.count) }
    }

    /// Whether `id` was appended.
    func contains(_ id: String) -> Bool { content.withLock { $0.entries[id] != nil } }

    /// Whether nothing was appended.
    var isEmpty: Bool { content.withLock { $0.entries.isEmpty } }

    /// The bytes appended as `id`, or `nil`.
    func object(_ id: String) -> Data? {
        guard let (descriptor, entry) = content.withLock({ c in c.entries[id].map { (c.descriptor, $0) } }) else {
            return nil
        }
        return VaultCache.read(descriptor: descriptor, at: entry.offset, count: entry.length)
    }

    /// Closes the pack: its index and temporary path, or `nil` (and no file) when nothing was appended.
    func finish() throws(VaultError) -> (PackIndex, String)? {
        let closed: (Int32, PackIndex)? = content.withLock { content in
            guard content.descriptor >= 0 else { return nil }
            defer { content.descriptor = -1 }
            return (content.descriptor, PackIndex(packLength: content.length, entries: content.entries))
        }
        guard let (descriptor, index) = closed else { throw .cache(reason: "the pack was already closed") }
        guard close(descriptor) == 0 else {
            unlink(temporaryPath)
            throw .cache(reason: "could not write to the cache")
        }
        if index.entries.isEmpty {
            unlink(temporaryPath)
            return nil
        }
        return (index, temporaryPath)
    }

    /// Closes and removes the pack if it was not committed.
    func abandon() {
        let descriptor = content.withLock { content in
            defer { content.descriptor = -1 }
            return content.descriptor
        }
        if descriptor >= 0 {
            close(descriptor)
            unlink(temporaryPath)
        }
    }
}
