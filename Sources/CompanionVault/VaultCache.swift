import Foundation

/// The on-disk cache of one vault: verified stored objects, and a small state file.
///
/// Layout: `objects/<object id>` (encrypted bytes exactly as served, checked against their content address before
/// they were written), `state.json` (the last pulled heads by ref file id, the commits whose whole history is cached,
/// and the packs already read), and `staging-<uuid>/` while a pull runs. Nothing in it is a key or plaintext.
///
/// Every write is atomic: a temporary file in the same folder, then `rename(2)`. A pull stages everything and
/// moves it into `objects/` only after every object verified, blobs first, then trees children-first, then the
/// state, so a failed or interrupted pull leaves the cache as it was (at most with extra verified objects).
///
/// Objects are written without `fsync(2)` (one per object cost more than the download itself): every object is
/// checked against its content address each time it is read, so one torn by a power cut is caught, dropped, and
/// fetched again. Only the state file is flushed to disk.
struct VaultCache: Sendable {
    struct State: Codable, Sendable, Equatable {
        var version = 1
        var vaultID: String
        var heads: [String: String] = [:]
        var lastRef: String?
        var complete: Set<String> = []
        var packs: Set<String> = []
    }

    let root: URL
    var objectsFolder: URL { root.appendingPathComponent("objects", isDirectory: true) }
    var stateFile: URL { root.appendingPathComponent("state.json") }
    /// `objects/` as a file system path (object paths are built from it by string concatenation, which is far
    /// cheaper than `URL` appending for thousands of objects).
    let objectsPath: String

    init(root: URL) throws(VaultError) {
        self.root = root
        self.objectsPath = root.appendingPathComponent("objects", isDirectory: true).path
        do {
            try FileManager.default.createDirectory(at: objectsFolder, withIntermediateDirectories: true)
        } catch {
            throw .cache(reason: "could not create the cache folder")
        }
        // Leftovers of an interrupted pull are unverified-as-a-whole: drop them.
        for folder in [root, objectsFolder] {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { continue }
            for name in names where name.hasPrefix("staging-") || name.hasPrefix(".tmp-") {
                try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
        }
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
        try Self.atomicWrite(data, to: stateFile, in: root)
    }

    func objectPath(_ id: String) -> String { objectsPath + "/" + id }

    func contains(_ id: String) -> Bool { access(objectPath(id), F_OK) == 0 }

    func object(_ id: String) -> Data? { try? Data(contentsOf: URL(fileURLWithPath: objectPath(id))) }

    /// Drops an object that failed its check on read, so the next read or pull fetches it again.
    func discard(_ id: String) { unlink(objectPath(id)) }

    /// Writes a verified object straight into the cache (used by `read` for a blob fetched on demand).
    func store(_ id: String, _ data: Data) throws(VaultError) {
        let temporary = objectsPath + "/.tmp-" + UUID().uuidString
        try Self.writeFile(data, path: temporary)
        guard rename(temporary, objectPath(id)) == 0 else {
            unlink(temporary)
            throw .cache(reason: "could not move a file into the cache")
        }
    }

    /// Writes `data` to a new file at `path` (mode 0600), without `fsync(2)`; see the type's note.
    static func writeFile(_ data: Data, path: String) throws(VaultError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .cache(reason: "could not stage an object") }
        let complete = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
            var offset = 0
            while offset < raw.count {
                guard let base = raw.baseAddress else { return false }
                let written = write(descriptor, base + offset, raw.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
        guard close(descriptor) == 0, complete else {
            unlink(path)
            throw .cache(reason: "could not stage an object")
        }
    }

    func makeStaging() throws(VaultError) -> URL {
        let folder = root.appendingPathComponent("staging-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .cache(reason: "could not create a staging folder")
        }
        return folder
    }

    /// Moves staged objects into `objects/` in the given order (each move is a `rename(2)`).
    func promote(_ ids: [String], from staging: URL) throws(VaultError) {
        let stagingPath = staging.path
        for id in ids {
            let source = stagingPath + "/" + id
            guard access(source, F_OK) == 0 else { continue }
            guard rename(source, objectPath(id)) == 0 else {
                throw .cache(reason: "could not move a verified object into the cache")
            }
        }
    }

    static func atomicWrite(_ data: Data, to url: URL, in folder: URL) throws(VaultError) {
        let temporary = folder.appendingPathComponent(".tmp-\(UUID().uuidString)")
        do {
            try data.write(to: temporary)
        } catch {
            throw .cache(reason: "could not write to the cache")
        }
        guard rename(temporary.path, url.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw .cache(reason: "could not move a file into the cache")
        }
    }
}
