import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An SG/Send server (or a static host serving the same routes), read with plain GETs and no credentials:
/// `GET <server>/api/vault/read/<vault_id>/<percent-encoded file id>` and `GET <server>/api/vault/list/<vault_id>?prefix=`.
///
/// Note for the lead: this talks to `URLSession` directly because `CompanionHTTP` had not landed when it was
/// written. Switching it to `CompanionHTTP.Client` touches only this file: `VaultSource` is the seam.
public struct HTTPVaultSource: VaultSource {
    /// The default server, as PrompTugal's seed §5 names it.
    public static let defaultServer = URL(string: "https://dev.send.sgraph.ai") ?? URL(fileURLWithPath: "/")

    /// The server's base URL.
    public let server: URL
    /// Objects per `POST /api/vault/batch` (read ops only, no credentials); 1 sends one GET per object.
    public let batchSize: Int
    private let session: URLSession

    /// Creates a source for `server`, using `session` (an ephemeral session without cookies by default).
    ///
    /// - Parameter batchSize: 1 (the default) reads every object with its own GET, as PrompTugal's contract says.
    ///   Up to 100 reads objects in batches through the SG/Send batch route, as `sgit clone` does: far fewer
    ///   round trips on a server whose per-request cost dominates.
    public init(server: URL = HTTPVaultSource.defaultServer, session: URLSession? = nil, batchSize: Int = 1) {
        self.server = server
        self.batchSize = min(max(1, batchSize), 100)
        if let session {
            self.session = session
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpCookieStorage = nil
            configuration.httpShouldSetCookies = false
            configuration.urlCache = nil
            configuration.httpMaximumConnectionsPerHost = 8
            configuration.timeoutIntervalForRequest = 60
            self.session = URLSession(configuration: configuration)
        }
    }

    /// The server's scheme, host and port.
    public var label: String {
        var parts = URLComponents(url: server, resolvingAgainstBaseURL: false)
        parts?.user = nil
        parts?.password = nil
        parts?.query = nil
        parts?.fragment = nil
        return parts?.string ?? "server"
    }

    private var baseString: String {
        var text = server.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// `quote(file_id, safe="")`, as the CLI encodes it: everything but unreserved characters.
    static func encode(_ component: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return component.addingPercentEncoding(withAllowedCharacters: allowed) ?? component
    }

    /// `GET /api/vault/read/<vault_id>/<file id>`: the raw stored bytes.
    public func read(vaultID: String, fileID: String) async throws(VaultError) -> VaultResponse {
        guard VaultKey.isValidVaultID(vaultID) else { throw .invalidIdentifier("vault id") }
        guard LocalFolderVaultSource.isSafeFileID(fileID) else { throw .invalidIdentifier("file id") }
        guard let url = URL(string: "\(baseString)/api/vault/read/\(vaultID)/\(Self.encode(fileID))") else {
            throw .invalidIdentifier("server URL")
        }
        let (status, body) = try await get(url, path: fileID)
        switch status {
        case 200: return VaultResponse(status: 200, body: body)
        case 404: return VaultResponse(status: 404, body: nil)
        default: throw .httpStatus(path: fileID, status: status)
        }
    }

    /// `GET /api/vault/list/<vault_id>?prefix=<prefix>`: `{"files": [...]}`.
    public func list(vaultID: String, prefix: String) async throws(VaultError) -> [String] {
        guard VaultKey.isValidVaultID(vaultID) else { throw .invalidIdentifier("vault id") }
        guard let url = URL(string: "\(baseString)/api/vault/list/\(vaultID)?prefix=\(Self.encode(prefix))") else {
            throw .invalidIdentifier("server URL")
        }
        let (status, body) = try await get(url, path: "list \(prefix)")
        if status == 404 { return [] }
        guard status == 200 else { throw .httpStatus(path: "list \(prefix)", status: status) }
        struct Listing: Decodable { let files: [String]? }
        guard let listing = try? JSONDecoder().decode(Listing.self, from: body) else {
            throw .transport(path: "list \(prefix)", reason: "the list answer is not the expected JSON")
        }
        return (listing.files ?? []).filter { $0.hasPrefix(prefix) }
    }

    /// `POST /api/vault/batch/<vault_id>` with read operations only (no write key, so no credentials).
    /// Falls back to one GET per file id when the server refuses the batch.
    public func readBatch(vaultID: String, fileIDs: [String]) async throws(VaultError) -> [String: VaultResponse] {
        guard batchSize > 1, fileIDs.count > 1 else {
            var result: [String: VaultResponse] = [:]
            for fileID in fileIDs { result[fileID] = try await read(vaultID: vaultID, fileID: fileID) }
            return result
        }
        guard VaultKey.isValidVaultID(vaultID) else { throw .invalidIdentifier("vault id") }
        for fileID in fileIDs where !LocalFolderVaultSource.isSafeFileID(fileID) {
            throw .invalidIdentifier("file id")
        }
        guard let url = URL(string: "\(baseString)/api/vault/batch/\(vaultID)") else {
            throw .invalidIdentifier("server URL")
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
        struct Answer: Decodable {
            struct Item: Decodable {
                let fileID: String?
                let status: String?
                let data: String?
                enum CodingKeys: String, CodingKey {
                    case fileID = "file_id"
                    case status
                    case data
                }
            }
            let results: [Item]?
        }
        let body = (try? JSONEncoder().encode(Body(operations: fileIDs.map { Operation(fileID: $0) }))) ?? Data()
        let (status, answerData) = try await send(url, method: "POST", body: body, path: "batch")
        guard status == 200, let answer = try? JSONDecoder().decode(Answer.self, from: answerData) else {
            var result: [String: VaultResponse] = [:]
            for fileID in fileIDs { result[fileID] = try await read(vaultID: vaultID, fileID: fileID) }
            return result
        }
        var result: [String: VaultResponse] = [:]
        let wanted = Set(fileIDs)
        for item in answer.results ?? [] {
            guard let fileID = item.fileID, wanted.contains(fileID) else { continue }
            if item.status == "ok", let text = item.data, let data = Data(base64Encoded: text) {
                result[fileID] = VaultResponse(status: 200, body: data)
            } else if item.status == "not_found" {
                result[fileID] = VaultResponse(status: 404, body: nil)
            } else {
                throw .transport(path: fileID, reason: "the batch answer for it is malformed")
            }
        }
        return result
    }

    private func get(_ url: URL, path: String) async throws(VaultError) -> (Int, Data) {
        try await send(url, method: "GET", body: nil, path: path)
    }

    private func send(_ url: URL, method: String, body: Data?, path: String) async throws(VaultError) -> (Int, Data) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        request.httpShouldHandleCookies = false
        request.cachePolicy = .reloadIgnoringLocalCacheData
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else {
                throw VaultError.transport(path: path, reason: "the answer is not HTTP")
            }
            return (http.statusCode, data)
        } catch let error as VaultError {
            throw error
        } catch {
            throw .transport(path: path, reason: (error as NSError).localizedDescription)
        }
    }
}
