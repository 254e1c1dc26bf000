import CompanionCore
import CompanionVault
import Foundation
import Observation

/// The vaults the person has open, as the UI lists them.
///
/// Rules:
/// - A key is imported from the pasted sgit key string or from a QR code's payload, which is the same string; one
///   parser serves both (P-VAULT-3, P-VAULT-4).
/// - Importing pulls the vault first and stores the key only after the pull found the vault: a wrong key, an
///   unknown vault or a refused request stores nothing and adds no vault (P-KEY-1). The key is stored with Face ID
///   protection, this device only. Phase 1 only reads, so only the read key is kept (issue 38 item 7): a pasted
///   vault key (`sgit_private_vault_…`, which could also write) is derived once, at import, and stored as its read
///   key (`sgit_private_read_…`, a "vault read key"); the passphrase is never stored and the next launch derives
///   nothing. A vault key stored by an earlier version still opens.
/// - Opening a vault whose key exists but cannot be read back gives the `keyUnavailable` state with "import it
///   again", never a crash or an empty vault (P-KEY-2).
/// - Closing a vault removes it from the list and drops its key from memory (P-VAULT-18).
/// - The kit's vault reader reads through the kit's `HTTPVaultSource` on a client of the app's
///   (`PrompTugalServer.client(for:)`): one GET per object on the read route (P-VAULT-2), each one Network entry
///   and one `request` event with the status the server sent (P-OPEN-24, P-VLOG-2), with no credential (the
///   OpenRouter rule never matches a vault server).
@MainActor @Observable
public final class VaultSession {
    /// One vault in the list.
    public struct Entry: Sendable, Hashable, Identifiable {
        /// Whether it can be read.
        public enum State: Sendable, Hashable {
            /// Open; `head` is the last pulled commit.
            case open(head: String?)
            /// Its key exists but cannot be read back; import it again.
            case keyUnavailable(String)
        }

        /// The vault id.
        public let id: String
        /// The server.
        public let server: URL
        /// The state.
        public var state: State
    }

    /// The vaults, in the order they were opened.
    public private(set) var vaults: [Entry] = []

    @ObservationIgnored private var readers: [String: SGitVault] = [:]
    @ObservationIgnored private let keyStore: any KeyStore
    @ObservationIgnored private let server: PrompTugalServer
    @ObservationIgnored private let cacheFolder: URL
    /// The one vault traffic log.
    @ObservationIgnored public let log: VaultTrafficLog

    /// A session keeping keys in `keyStore`, caches under `cacheFolder`, reading through `server`'s clients.
    public init(keyStore: any KeyStore, server: PrompTugalServer, cacheFolder: URL, log: VaultTrafficLog) {
        self.keyStore = keyStore
        self.server = server
        self.cacheFolder = cacheFolder
        self.log = log
    }

    /// Imports a key from pasted text or a QR code's payload: pulls the vault, and only then stores the key and
    /// lists the vault. Returns the pulled head.
    @discardableResult
    public func importKey(_ text: String, server vaultServer: URL = HTTPVaultSource.defaultServer) async throws
        -> VaultCommit
    {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let key = try VaultKey(importing: trimmed, log: log)
        let folder = cacheFolder.appendingPathComponent(key.vaultID, isDirectory: true)
        let isNew = !FileManager.default.fileExists(atPath: folder.path)
        let reader = try makeReader(key, server: vaultServer)
        let head: VaultCommit
        do {
            head = try await reader.pull()
        } catch {
            // Nothing of a vault that was never found stays behind (P-VAULT-11), not even an empty cache folder.
            if isNew { try? FileManager.default.removeItem(at: folder) }
            throw error
        }
        // One key per vault, and only the read key: the one just proven right replaces any kept before, a vault
        // key stored by an earlier version included.
        try keyStore.save(key.readKeyString, as: .vaultRead(vaultID: key.vaultID), protection: .vaultKey)
        try keyStore.delete(.vault(vaultID: key.vaultID))
        readers[key.vaultID] = reader
        upsert(Entry(id: key.vaultID, server: vaultServer, state: .open(head: head.id)))
        return head
    }

    /// Opens the vault whose key is in the key store (its read key, else its vault key).
    public func open(vaultID: String, server vaultServer: URL = HTTPVaultSource.defaultServer) throws {
        var stored: String?
        for name in [StoredKeyName.vaultRead(vaultID: vaultID), .vault(vaultID: vaultID)] where stored == nil {
            do {
                stored = try keyStore.load(name)
            } catch KeyStoreError.unavailable(let name) {
                upsert(
                    Entry(
                        id: vaultID, server: vaultServer,
                        state: .keyUnavailable(KeyStoreError.unavailable(name).description)))
                readers[vaultID] = nil
                return
            }
        }
        guard let stored else { throw VaultSessionError.noKey(vaultID) }
        let key = try VaultKey(importing: stored, log: log)
        readers[key.vaultID] = try makeReader(key, server: vaultServer)
        upsert(Entry(id: key.vaultID, server: vaultServer, state: .open(head: nil)))
    }

    private func makeReader(_ key: VaultKey, server vaultServer: URL) throws(VaultError) -> SGitVault {
        let source = HTTPVaultSource(client: server.client(for: vaultServer), batchSize: 1)
        let folder = cacheFolder.appendingPathComponent(key.vaultID, isDirectory: true)
        return try SGitVault(key: key, source: source, cache: folder, log: log)
    }

    /// Closes a vault: out of the list, its key out of memory (the stored key stays for the next launch).
    public func close(_ vaultID: String) {
        readers[vaultID] = nil
        vaults.removeAll { $0.id == vaultID }
    }

    /// The reader of an open vault.
    public func reader(_ vaultID: String) -> SGitVault? { readers[vaultID] }

    /// Pulls an open vault and records its head.
    @discardableResult
    public func pull(_ vaultID: String) async throws -> VaultCommit {
        guard let reader = readers[vaultID] else { throw VaultSessionError.notOpen(vaultID) }
        let commit = try await reader.pull()
        if let index = vaults.firstIndex(where: { $0.id == vaultID }) { vaults[index].state = .open(head: commit.id) }
        return commit
    }

    private func upsert(_ entry: Entry) {
        if let index = vaults.firstIndex(where: { $0.id == entry.id }) {
            vaults[index] = entry
        } else {
            vaults.append(entry)
        }
    }
}

/// Why a vault could not be opened or used.
public enum VaultSessionError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// No key is stored for the vault.
    case noKey(String)
    /// The vault is not open.
    case notOpen(String)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .noKey(let id): return "No key is stored for vault \(id): import its read key first."
        case .notOpen(let id): return "Vault \(id) is not open: open it or import its key first."
        }
    }

    /// The same sentence.
    public var errorDescription: String? { description }
}

extension VaultSession {
    /// The sentence a screen shows for a vault failure, in PrompTugal's words (P-TEAM-8): a key that does not read
    /// is "not a usable vault key", never named by the vault tool's own format name; a server's refusal keeps the
    /// server's words (P-OPEN-17); every other failure is the reader's own sentence.
    public nonisolated static func sentence(for error: any Error) -> String {
        guard let error = error as? VaultError else { return String(describing: error) }
        guard case .malformedKey(let problem) = error else { return error.description }
        let reason: String
        switch problem {
        case .empty: reason = "nothing was pasted."
        case .missingVaultID: reason = "the vault id after the last ':' is missing."
        case .invalidVaultID: reason = "the vault id must be 4 to 24 lowercase letters and digits."
        case .wrongHexLength(let count): reason = "a read key has 64 hexadecimal digits, this one has \(count)."
        case .notHex: reason = "a read key may contain only the digits 0-9 and the letters a-f."
        case .emptyPassphrase: reason = "the passphrase before the vault id is empty."
        case .derivationFailed: reason = "the passphrase could not be turned into a key."
        }
        return "This is not a usable vault key: \(reason) Copy the whole key again from where it was shared."
    }
}
