import CompanionCore
import CompanionCrypto
import CompanionHTTP
import Foundation

/// An SG/Send server (or a static host serving the same routes), read with plain GETs and no credentials:
/// `GET <server>/api/vault/read/<vault_id>/<percent-encoded file id>` and `GET <server>/api/vault/list/<vault_id>?prefix=`.
///
/// Requests go through the kit's `Client`: GETs are retried on transient failures (they are idempotent),
/// every exchange is journaled with the URL only (the stored bytes are ciphertext and are not previewed),
/// and plain http is accepted only for a loopback server.
public struct HTTPVaultSource: VaultSource {
    /// The default server, the public SG/Send server.
    public static let defaultServer = URL(string: "https://dev.send.sgraph.ai") ?? URL(fileURLWithPath: "/")

    /// The server's base URL.
    public let server: URL
    /// Objects per `POST /api/vault/batch` (read ops only, no credentials); 1 sends one GET per object.
    public let batchSize: Int
    /// How many per-object GETs run at once when there is no batch route (or `batchSize` is 1).
    public static let parallelReads = 8
    private let client: Client
    private let batchRoute = BatchRouteMemo()

    /// A source reading the server `client` is for, through that client: the app's own, with its transport, its
    /// transport policy and its journal, so every vault request is one of the app's exchanges.
    ///
    /// - Parameter client: The client whose base URL is the SG/Send server. It must carry no credential for that
    ///   server: vault reads need none.
    /// - Parameter batchSize: 50 (the default) reads objects in batches through the SG/Send batch route, as
    ///   `sgit clone` does: far fewer round trips on a server whose per-request cost dominates. A server without
    ///   the route is remembered after its first refusal, and objects are then read with parallel GETs. 1 reads
    ///   every object with its own GET (the plain read contract), up to 100 per batch.
    public init(client: Client, batchSize: Int = 50) {
        self.server = client.baseURL
        self.batchSize = min(max(1, batchSize), 100)
        self.client = client
    }

    /// A source with a client of its own for `server`: the platform's transport under `policy` (https only
    /// unless the caller opts in to loopback http), exchanges recorded in `journal` by URL, status and sizes,
    /// without a body preview (a batch request's body is only object ids, and the answers are ciphertext).
    public init(
        server: URL = HTTPVaultSource.defaultServer, batchSize: Int = 50, policy: TransportPolicy = .httpsOnly,
        journal: Journal = Journal()
    ) {
        let client = Client(
            baseURL: server,
            configuration: Client.Configuration(
                defaultHeaders: ["User-Agent": "CompanionKit/0.1"], timeout: Self.timeout,
                maxResponseBytes: Self.maxAnswerBytes,
                middlewares: [JournalMiddleware(journal: journal, bodyPreviewLimit: 0)], transportPolicy: policy,
                journal: journal, recordsExchanges: false),
            transport: DefaultTransport.make(redirectPolicy: RedirectPolicy(permits: { policy.permits($0) })))
        self.init(client: client, batchSize: batchSize)
    }

    /// The idle timeout of every vault request (a batch of large objects takes a while).
    static let timeout = Duration.seconds(60)
    /// The largest answer read (a batch of up to 100 objects).
    static let maxAnswerBytes = 1 << 30

    /// The server's scheme, host and port.
    public var label: String {
        var parts = URLComponents(url: server, resolvingAgainstBaseURL: false)
        parts?.user = nil
        parts?.password = nil
        parts?.query = nil
        parts?.fragment = nil
        return parts?.string ?? "server"
    }

    /// `quote(file_id, safe="")`, as the CLI encodes it: everything but unreserved characters (the kit's one segment
    /// escaper, which also escapes an id that is `.` or `..`).
    static func encode(_ component: String) -> String { PercentEncoding.segment(component) }

    /// `GET /api/vault/read/<vault_id>/<file id>`: the raw stored bytes.
    ///
    /// 200 is the stored bytes and 404 "missing"; any other status is a refusal that keeps the server's own
    /// sentence when it sent one (P-OPEN-17: the SG/Send server refuses a vault id of fewer than 8 characters).
    public func read(vaultID: String, fileID: String) async throws(VaultError) -> VaultResponse {
        guard VaultKey.isValidVaultID(vaultID) else { throw .invalidIdentifier("vault id") }
        guard LocalFolderVaultSource.isSafeFileID(fileID) else { throw .invalidIdentifier("file id") }
        let answer = try await send(
            "/api/vault/read/\(vaultID)/\(Self.encode(fileID))", method: .get, body: nil, path: fileID)
        switch answer.status {
        case 200: return VaultResponse(status: 200, body: answer.body)
        case 404: return VaultResponse(status: 404, body: nil)
        default: throw answer.refusal(path: fileID)
        }
    }

    /// `GET /api/vault/list/<vault_id>?prefix=<prefix>`: `{"files": [...]}`.
    public func list(vaultID: String, prefix: String) async throws(VaultError) -> [String] {
        try await listing(vaultID: vaultID, prefix: prefix).files
    }

    /// The listing with the status the server sent: 200, or 404 (an empty listing).
    public func listing(vaultID: String, prefix: String) async throws(VaultError) -> VaultListing {
        guard VaultKey.isValidVaultID(vaultID) else { throw .invalidIdentifier("vault id") }
        let path = "list \(prefix)"
        let answer = try await send(
            "/api/vault/list/\(vaultID)?prefix=\(Self.encode(prefix))", method: .get, body: nil, path: path)
        if answer.status == 404 { return VaultListing(status: 404, files: []) }
        guard answer.status == 200 else { throw answer.refusal(path: path) }
        struct Listing: Decodable { let files: [String]? }
        guard let listing = try? JSONDecoder().decode(Listing.self, from: answer.body) else {
            throw .transport(path: path, reason: "the list answer is not the expected JSON")
        }
        return VaultListing(status: 200, files: (listing.files ?? []).filter { $0.hasPrefix(prefix) })
    }

    /// `POST /api/vault/batch/<vault_id>` with read operations only (no write key, so no credentials).
    /// Falls back to one GET per file id when the server refuses the batch.
    public func readBatch(vaultID: String, fileIDs: [String]) async throws(VaultError) -> [String: VaultResponse] {
        try await fetchBatch(vaultID: vaultID, fileIDs: fileIDs).responses
    }

    /// The batch with every exchange it took: the batch request with its status; where the server refused it
    /// (a static host has no batch route), that refusal and then each GET with its own status.
    public func fetchBatch(vaultID: String, fileIDs: [String]) async throws(VaultError) -> VaultBatchReply {
        guard batchSize > 1, fileIDs.count > 1, batchRoute.isOffered else {
            return try await readEach(vaultID: vaultID, fileIDs: fileIDs, before: [])
        }
        guard VaultKey.isValidVaultID(vaultID) else { throw .invalidIdentifier("vault id") }
        for fileID in fileIDs where !LocalFolderVaultSource.isSafeFileID(fileID) {
            throw .invalidIdentifier("file id")
        }
        struct Operation: Encodable {
            let op = "read"
            let fileID: String
            enum CodingKeys: String, CodingKey {
                case op
                case fileID = "file_id"
            }
        }
        struct Body: Encodable { let operations: [Operation] }
        let body = (try? JSONEncoder().encode(Body(operations: fileIDs.map { Operation(fileID: $0) }))) ?? Data()
        // A batch of reads changes nothing on the server, so it may be retried under a fixed key.
        let answer = try await send(
            "/api/vault/batch/\(vaultID)", method: .post, body: body, path: "batch",
            idempotencyKey: "read-batch-" + Hash.sha256(body).prefix(16).hexString)
        let exchange = VaultExchange(
            path: "batch of \(fileIDs.count)", status: answer.status, bytes: answer.body.count, detail: "POST batch")
        let items: [VaultBatchAnswer.Item]
        if answer.status == 200, let fast = VaultBatchAnswer.parse(answer.body) {
            items = fast
        } else if answer.status == 200,
            let decoded = try? JSONDecoder().decode(VaultBatchAnswer.Decoded.self, from: answer.body)
        {
            items = decoded.items
        } else {
            // No batch route here (404/405, or an answer of another shape): read objects one by one from now on.
            if answer.status != 200 { batchRoute.refused() }
            return try await readEach(vaultID: vaultID, fileIDs: fileIDs, before: [exchange])
        }
        var result: [String: VaultResponse] = [:]
        let wanted = Set(fileIDs)
        for item in items {
            guard let fileID = item.fileID, wanted.contains(fileID) else { continue }
            if item.status == "ok", let data = item.data {
                result[fileID] = VaultResponse(status: 200, body: data)
            } else if item.status == "not_found" {
                result[fileID] = VaultResponse(status: 404, body: nil)
            } else {
                throw .transport(path: fileID, reason: "the batch answer for it is malformed")
            }
        }
        return VaultBatchReply(responses: result, exchanges: [exchange])
    }

    /// One GET per file id, `parallelReads` at a time, each an exchange after `before`.
    private func readEach(
        vaultID: String, fileIDs: [String], before: [VaultExchange]
    ) async throws(VaultError) -> VaultBatchReply {
        let outcome: Result<VaultBatchReply, VaultError> = await withTaskGroup(
            of: Result<(String, VaultResponse), VaultError>.self
        ) { group in
            var pending = fileIDs.makeIterator()
            func addNext() {
                guard let fileID = pending.next() else { return }
                group.addTask {
                    do throws(VaultError) {
                        return .success((fileID, try await read(vaultID: vaultID, fileID: fileID)))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            for _ in 0..<Self.parallelReads { addNext() }
            var result: [String: VaultResponse] = [:]
            var exchanges = before
            while let next = await group.next() {
                switch next {
                case .success(let (fileID, response)):
                    result[fileID] = response
                    exchanges.append(
                        VaultExchange(
                            path: fileID, status: response.status, bytes: response.body?.count ?? 0, detail: "GET"))
                    addNext()
                case .failure(let error):
                    group.cancelAll()
                    return .failure(error)
                }
            }
            return .success(VaultBatchReply(responses: result, exchanges: exchanges))
        }
        return try outcome.get()
    }

    /// What the server answered: its status, the body of a 2xx answer, and its own sentence on a refusal.
    private struct Answer {
        let status: Int
        let body: Data
        let message: String?

        /// The refusal of a status other than 200 and 404, in the server's own words when it sent some.
        func refusal(path: String) -> VaultError {
            guard let message, !message.isEmpty else { return .httpStatus(path: path, status: status) }
            return .refused(path: path, status: status, message: message)
        }
    }

    private func send(
        _ apiPath: String, method: HTTPMethod, body: Data?, path: String, idempotencyKey: String? = nil
    ) async throws(VaultError) -> Answer {
        var request = Request<Data>.raw(method, apiPath, body: body)
        request.timeout = Self.timeout
        request.maxResponseBytes = Self.maxAnswerBytes
        if let idempotencyKey { request = request.idempotencyKey(idempotencyKey) }
        do {
            let (data, response) = try await client.exchange(request)
            return Answer(status: response.status, body: data, message: nil)
        } catch {
            if let status = error.statusCode {
                return Answer(status: status, body: Data(), message: error.envelope?.summary)
            }
            throw .transport(path: path, reason: error.description)
        }
    }
}

/// Whether a server offers the batch route, learnt from its first answer and shared by copies of a source.
final class BatchRouteMemo: Sendable {
    private let offered = Locked(true)

    /// `true` until the server refused a batch.
    var isOffered: Bool { offered.withLock { $0 } }

    /// Records that the server has no batch route.
    func refused() { offered.withLock { $0 = false } }
}
