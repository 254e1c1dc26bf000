import CompanionCore
import CompanionVault
import Foundation
import Observation

/// The vaults the person has open, as the UI lists them.
///
/// Rules:
/// - A read key is imported from the pasted sgit key string or from a QR code's payload, which is the same string;
///   one parser serves both (P-VAULT-3, P-VAULT-4). It is saved in the key store with Face ID protection, this
///   device only (P-KEY-1), and the vault is opened.
/// - Opening a vault whose key exists but cannot be read back gives the `keyUnavailable` state with "import it
///   again", never a crash or an empty vault (P-KEY-2).
/// - Closing a vault removes it from the list and drops its key from memory (P-VAULT-18).
/// - The vault reader reads through the app's one network (`VaultNetworkSource`) and logs to the one vault
///   traffic log (P-OPEN-24).
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
    @ObservationIgnored private let network: PrompTugalNetwork
    @ObservationIgnored private let cacheFolder: URL
    /// The one vault traffic log.
    @ObservationIgnored public let log: VaultTrafficLog

    /// A session keeping keys in `keyStore`, caches under `cacheFolder`, reading through `network`.
    public init(keyStore: any KeyStore, network: PrompTugalNetwork, cacheFolder: URL, log: VaultTrafficLog) {
        self.keyStore = keyStore
        self.network = network
        self.cacheFolder = cacheFolder
        self.log = log
    }

    /// Imports a read key from pasted text or a QR code's payload, stores it and opens the vault.
    @discardableResult
    public func importKey(_ text: String, server: URL = HTTPVaultSource.defaultServer) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let key = try VaultKey(importing: trimmed, log: log)
        try keyStore.save(trimmed, as: .vaultRead(vaultID: key.vaultID), protection: .vaultKey)
        try open(key, server: server)
        return key.vaultID
    }

    /// Opens the vault whose key is in the key store.
    public func open(vaultID: String, server: URL = HTTPVaultSource.defaultServer) throws {
        let stored: String?
        do {
            stored = try keyStore.load(.vaultRead(vaultID: vaultID))
        } catch KeyStoreError.unavailable(let name) {
            upsert(
                Entry(id: vaultID, server: server, state: .keyUnavailable(KeyStoreError.unavailable(name).description)))
            readers[vaultID] = nil
            return
        }
        guard let stored else { throw VaultSessionError.noKey(vaultID) }
        try open(VaultKey(importing: stored, log: log), server: server)
    }

    private func open(_ key: VaultKey, server: URL) throws {
        let source = VaultNetworkSource(server: server, network: network)
        let folder = cacheFolder.appendingPathComponent(key.vaultID, isDirectory: true)
        readers[key.vaultID] = try SGitVault(key: key, source: source, cache: folder, log: log)
        upsert(Entry(id: key.vaultID, server: server, state: .open(head: nil)))
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
