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
    private let session: URLSession

    /// Creates a source for `server`, using `session` (an ephemeral session without cookies by default).
    public init(server: URL = HTTPVaultSource.defaultServer, session: URLSession? = nil) {
        self.server = server
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

    private func get(_ url: URL, path: String) async throws(VaultError) -> (Int, Data) {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
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
