import Foundation

/// What a source answered for one file id.
public struct VaultResponse: Sendable, Hashable {
    /// The HTTP status (a folder source answers 200 or 404).
    public let status: Int
    /// The raw stored bytes on 200, else `nil`.
    public let body: Data?

    /// Creates a response.
    public init(status: Int, body: Data?) {
        self.status = status
        self.body = body
    }
}

/// One HTTP exchange (or folder read) a source made, as the traffic log records it: the status the server sent.
public struct VaultExchange: Sendable, Hashable {
    /// What was asked for: a file id, a list prefix, or `batch of <n>`.
    public let path: String
    /// The status the server sent (a folder source reports 200 or 404).
    public let status: Int
    /// The bytes received.
    public let bytes: Int
    /// A short description (`GET`, `POST batch`, `list`).
    public let detail: String

    /// Creates an exchange.
    public init(path: String, status: Int, bytes: Int, detail: String) {
        self.path = path
        self.status = status
        self.bytes = bytes
        self.detail = detail
    }
}

/// What a source answered for a listing: the file ids, and the status the server sent for it.
public struct VaultListing: Sendable, Hashable {
    /// The status the server sent: 200, or 404 for a vault or prefix it does not have (then `files` is empty).
    public let status: Int
    /// The file ids under the prefix.
    public let files: [String]

    /// Creates a listing.
    public init(status: Int, files: [String]) {
        self.status = status
        self.files = files
    }
}

/// What a source answered for several file ids, with every exchange it took to get them.
public struct VaultBatchReply: Sendable, Hashable {
    /// The answer for each file id.
    public let responses: [String: VaultResponse]
    /// The exchanges, in order, each with the status the server sent: one batch request; or, where the server
    /// refused the batch route, that refusal and then one read per file id.
    public let exchanges: [VaultExchange]

    /// Creates a reply.
    public init(responses: [String: VaultResponse], exchanges: [VaultExchange]) {
        self.responses = responses
        self.exchanges = exchanges
    }
}

/// Where a vault's stored bytes come from: an SG/Send server, a static host, or a folder.
///
/// A source knows nothing about keys: it moves opaque encrypted bytes by file id.
///
/// Rule (P-VLOG-2): the reader logs every request with the status the server sent, on every request kind: a
/// read's `VaultResponse.status`, a listing's `VaultListing.status`, and each exchange of a batch.
public protocol VaultSource: Sendable {
    /// A short description for logs, without credentials (e.g. `http://127.0.0.1:8421` or `folder`).
    var label: String { get }
    /// Fetches the stored bytes of `fileID` (`bare/refs/…`, `bare/data/…`). A missing file is status 404, not a throw.
    func read(vaultID: String, fileID: String) async throws(VaultError) -> VaultResponse
    /// Lists the file ids that start with `prefix` (the list route), e.g. `bare/packs/snapshots/`.
    func list(vaultID: String, prefix: String) async throws(VaultError) -> [String]
    /// How many file ids `readBatch` takes at once; 1 (the default) means the reader sends one `read` per object.
    var batchSize: Int { get }
    /// Fetches several file ids in one exchange; the default calls `read` for each.
    func readBatch(vaultID: String, fileIDs: [String]) async throws(VaultError) -> [String: VaultResponse]
    /// Lists like `list`, with the status the server sent; the default calls `list` and reports 200.
    func listing(vaultID: String, prefix: String) async throws(VaultError) -> VaultListing
    /// Fetches like `readBatch`, with the exchanges it took; the default calls `readBatch` and reports it as one
    /// exchange of status 200.
    func fetchBatch(vaultID: String, fileIDs: [String]) async throws(VaultError) -> VaultBatchReply
}

extension VaultSource {
    /// One object per request.
    public var batchSize: Int { 1 }

    /// Calls `read` for each file id in turn.
    public func readBatch(vaultID: String, fileIDs: [String]) async throws(VaultError) -> [String: VaultResponse] {
        var result: [String: VaultResponse] = [:]
        for fileID in fileIDs { result[fileID] = try await read(vaultID: vaultID, fileID: fileID) }
        return result
    }

    /// The listing `list` gives, reported as status 200.
    public func listing(vaultID: String, prefix: String) async throws(VaultError) -> VaultListing {
        VaultListing(status: 200, files: try await list(vaultID: vaultID, prefix: prefix))
    }

    /// The answers `readBatch` gives, reported as one exchange of status 200.
    public func fetchBatch(vaultID: String, fileIDs: [String]) async throws(VaultError) -> VaultBatchReply {
        let responses = try await readBatch(vaultID: vaultID, fileIDs: fileIDs)
        let bytes = responses.values.reduce(0) { $0 + ($1.body?.count ?? 0) }
        return VaultBatchReply(
            responses: responses,
            exchanges: [VaultExchange(path: "batch of \(fileIDs.count)", status: 200, bytes: bytes, detail: "batch")])
    }
}

/// A vault in a folder, in either layout `sgit clone --transport local` reads: `<folder>/<file_id>`, or
/// `<folder>/api/vault/read/<vault_id>/<file_id>`. A clone's `.sg_vault` folder works too.
public struct LocalFolderVaultSource: VaultSource {
    /// The folder.
    public let root: URL

    /// Creates a source reading `root`.
    public init(root: URL) { self.root = root }

    /// `folder`, without the path (paths can hold user names).
    public var label: String { "folder" }

    private func base(_ vaultID: String) -> URL {
        let nested = root.appendingPathComponent("api/vault/read/\(vaultID)", isDirectory: true)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: nested.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return nested
        }
        return root
    }

    /// Reads `<base>/<fileID>`; 404 when it does not exist.
    public func read(vaultID: String, fileID: String) async throws(VaultError) -> VaultResponse {
        guard LocalFolderVaultSource.isSafeFileID(fileID) else { throw .invalidIdentifier("file id") }
        let url = base(vaultID).appendingPathComponent(fileID)
        guard FileManager.default.fileExists(atPath: url.path) else { return VaultResponse(status: 404, body: nil) }
        do {
            return VaultResponse(status: 200, body: try Data(contentsOf: url, options: .mappedIfSafe))
        } catch {
            throw .transport(path: fileID, reason: "the file could not be read")
        }
    }

    /// Lists regular files under `<base>/<prefix>` (one level, as the packs folders are flat).
    public func list(vaultID: String, prefix: String) async throws(VaultError) -> [String] {
        guard LocalFolderVaultSource.isSafeFileID(prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix) else {
            throw .invalidIdentifier("list prefix")
        }
        let folder = base(vaultID).appendingPathComponent(prefix, isDirectory: true)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        let directoryPrefix = prefix.hasSuffix("/") ? prefix : prefix + "/"
        return names.sorted().map { directoryPrefix + $0 }
    }

    /// A file id is `/`-separated safe names: no empty, `.` or `..` component.
    static func isSafeFileID(_ fileID: String) -> Bool {
        let parts = fileID.split(separator: "/", omittingEmptySubsequences: false)
        return !parts.isEmpty && parts.allSatisfy { VaultFormat.isSafeName(String($0)) }
    }
}
