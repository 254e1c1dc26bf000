import CompanionCore
import CompanionHTTP
import CompanionVault
import Foundation

/// An SG/Send server read through the app's one network, so every vault request is also a Network entry.
///
/// Rules (P-OPEN-24, P-NET-1, P-VAULT-2): reads are `GET <server>/api/vault/read/<vault_id>/<percent-encoded file
/// id>` and listings `GET <server>/api/vault/list/<vault_id>?prefix=`, with no Authorization header, no cookie and
/// no key (the OpenRouter middleware never matches a vault server). The reply's true status is returned: 200 with
/// the stored bytes, 404 as "missing", anything else as `VaultError.httpStatus`. The vault reader logs each as a
/// `request` event in the vault traffic log, and the client logs it in the network journal: once in each.
public struct VaultNetworkSource: VaultSource {
    /// The server.
    public let server: URL
    private let client: Client

    /// Reads `server` through `network`.
    public init(server: URL = HTTPVaultSource.defaultServer, network: PrompTugalNetwork) {
        self.server = server
        self.client = network.client(for: server)
    }

    /// The server's address.
    public var label: String { server.absoluteString }

    /// Everything but unreserved characters percent-encoded, as the sgit CLI encodes a file id.
    static func encode(_ component: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return component.addingPercentEncoding(withAllowedCharacters: allowed) ?? component
    }

    static func isSafe(_ fileID: String) -> Bool {
        let parts = fileID.split(separator: "/", omittingEmptySubsequences: false)
        return !parts.isEmpty && parts.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    /// One stored file.
    public func read(vaultID: String, fileID: String) async throws(VaultError) -> VaultResponse {
        guard VaultKey.isValidVaultID(vaultID) else { throw .invalidIdentifier("vault id") }
        guard Self.isSafe(fileID) else { throw .invalidIdentifier("file id") }
        let (status, body) = try await get("/api/vault/read/\(vaultID)/\(Self.encode(fileID))", path: fileID)
        switch status {
        case 200: return VaultResponse(status: 200, body: body)
        case 404: return VaultResponse(status: 404, body: nil)
        default: throw .httpStatus(path: fileID, status: status)
        }
    }

    /// The file ids under `prefix`.
    public func list(vaultID: String, prefix: String) async throws(VaultError) -> [String] {
        guard VaultKey.isValidVaultID(vaultID) else { throw .invalidIdentifier("vault id") }
        let (status, body) = try await get(
            "/api/vault/list/\(vaultID)?prefix=\(Self.encode(prefix))", path: "list \(prefix)")
        if status == 404 { return [] }
        guard status == 200 else { throw .httpStatus(path: "list \(prefix)", status: status) }
        struct Listing: Decodable { let files: [String]? }
        guard let listing = try? JSONDecoder().decode(Listing.self, from: body) else {
            throw .transport(path: "list \(prefix)", reason: "the list answer is not the expected JSON")
        }
        return (listing.files ?? []).filter { $0.hasPrefix(prefix) }
    }

    private func get(_ apiPath: String, path: String) async throws(VaultError) -> (Int, Data) {
        do {
            let (data, response) = try await client.exchange(PrompTugalNetwork.get(apiPath))
            return (response.status, data)
        } catch {
            if let status = error.statusCode { return (status, Data()) }
            throw .transport(path: path, reason: error.description)
        }
    }
}
