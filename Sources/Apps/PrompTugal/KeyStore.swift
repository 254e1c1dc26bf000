import CompanionCore
import Foundation

/// A key the app keeps for the person.
public enum StoredKeyName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// A vault's read key.
    case vaultRead(vaultID: String)
    /// The OpenRouter API key.
    case openRouter

    /// The account name a secret store files it under.
    public var account: String {
        switch self {
        case .vaultRead(let vaultID): return "vault-read-" + vaultID
        case .openRouter: return "openrouter"
        }
    }

    /// The name from an account name.
    public init?(account: String) {
        if account == "openrouter" {
            self = .openRouter
        } else if account.hasPrefix("vault-read-"), account.count > 11 {
            self = .vaultRead(vaultID: String(account.dropFirst(11)))
        } else {
            return nil
        }
    }

    /// `vault read key (vault <id>)` or `OpenRouter key`.
    public var description: String {
        switch self {
        case .vaultRead(let vaultID): return "vault read key (vault \(vaultID))"
        case .openRouter: return "OpenRouter key"
        }
    }

    /// Ordered by account name.
    public static func < (left: StoredKeyName, right: StoredKeyName) -> Bool { left.account < right.account }
}

/// How a stored key is protected; the secret-store request carries it so a test can assert it (P-KEY-1).
public struct KeyProtection: Sendable, Hashable {
    /// Readable only after Face ID / Touch ID with the current enrolment (`.biometryCurrentSet`).
    public var biometryCurrentSet: Bool
    /// Never leaves this device (`…ThisDeviceOnly` accessibility; not in backups).
    public var thisDeviceOnly: Bool

    /// Creates a protection.
    public init(biometryCurrentSet: Bool, thisDeviceOnly: Bool) {
        self.biometryCurrentSet = biometryCurrentSet
        self.thisDeviceOnly = thisDeviceOnly
    }

    /// Vault keys: Face ID with the current enrolment, this device only (P-KEY-1).
    public static let vaultKey = KeyProtection(biometryCurrentSet: true, thisDeviceOnly: true)

    /// The OpenRouter key: biometry is the person's choice (P-SECRET-1).
    public static func openRouter(biometric: Bool) -> KeyProtection {
        KeyProtection(biometryCurrentSet: biometric, thisDeviceOnly: true)
    }

    /// `Face ID (current enrolment), this device only`, for the Keys panel.
    public var summary: String {
        var parts: [String] = []
        parts.append(biometryCurrentSet ? "Face ID (current enrolment)" : "no biometric lock")
        if thisDeviceOnly { parts.append("this device only") }
        return parts.joined(separator: ", ")
    }
}

/// Where the app keeps keys: the Keychain on device, a 0600 file for the terminal, memory in tests.
///
/// Rule (P-KEY-2): a key that exists but cannot be read back (Face ID re-enrolment invalidates
/// `.biometryCurrentSet` items) is `KeyStoreError.unavailable`, never `nil`: the app says "import it again"
/// instead of showing an empty vault.
public protocol KeyStore: Sendable {
    /// Where keys are kept, as the Keys panel says it ("Keychain", "file", "memory").
    var location: String { get }
    /// Stores `secret` under `name` with `protection`.
    func save(_ secret: String, as name: StoredKeyName, protection: KeyProtection) throws(KeyStoreError)
    /// The secret under `name`, `nil` when none is stored.
    func load(_ name: StoredKeyName) throws(KeyStoreError) -> String?
    /// Removes the secret under `name`.
    func delete(_ name: StoredKeyName) throws(KeyStoreError)
    /// The stored names with their protection (never the values).
    func entries() throws(KeyStoreError) -> [(name: StoredKeyName, protection: KeyProtection)]
}

/// Why a key could not be stored or read.
public enum KeyStoreError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The key exists but cannot be read back.
    case unavailable(StoredKeyName)
    /// The store failed.
    case failed(String)

    /// A sentence a person can act on; never a key's value.
    public var description: String {
        switch self {
        case .unavailable(let name):
            return "The \(name) is unavailable (for example after Face ID was set up again). Import it again."
        case .failed(let reason): return "The key store failed: \(reason)"
        }
    }

    /// The same sentence.
    public var errorDescription: String? { description }
}

/// Keys in memory, with a switch that makes one unreadable as a Face ID re-enrolment would.
public final class InMemoryKeyStore: KeyStore {
    private struct Entry {
        var secret: String
        var protection: KeyProtection
        var readable = true
    }

    private let entriesByName = Locked<[StoredKeyName: Entry]>([:])

    /// An empty store.
    public init() {}

    /// "memory".
    public var location: String { "memory" }

    /// Stores a key.
    public func save(_ secret: String, as name: StoredKeyName, protection: KeyProtection) {
        entriesByName.withLock { $0[name] = Entry(secret: secret, protection: protection) }
    }

    /// The key, or `unavailable` after `invalidate(_:)`.
    public func load(_ name: StoredKeyName) throws(KeyStoreError) -> String? {
        let entry = entriesByName.withLock { $0[name] }
        guard let entry else { return nil }
        guard entry.readable else { throw .unavailable(name) }
        return entry.secret
    }

    /// Removes a key.
    public func delete(_ name: StoredKeyName) {
        _ = entriesByName.withLock { $0.removeValue(forKey: name) }
    }

    /// The names and protections.
    public func entries() -> [(name: StoredKeyName, protection: KeyProtection)] {
        entriesByName.withLock { $0.map { (name: $0.key, protection: $0.value.protection) } }.sorted {
            $0.name < $1.name
        }
    }

    /// Makes `name` unreadable while it still exists, as a Face ID re-enrolment does to a Keychain item.
    public func invalidate(_ name: StoredKeyName) {
        entriesByName.withLock { $0[name]?.readable = false }
    }
}

/// Keys in files of a 0700 folder, each file 0600, for the terminal client (which has no Keychain).
public struct FileKeyStore: KeyStore {
    /// The folder.
    public let folder: URL

    /// Keys in `folder`.
    public init(folder: URL) { self.folder = folder }

    /// "file".
    public var location: String { "file (0600)" }

    private struct Record: Codable {
        let secret: String
        let biometryCurrentSet: Bool
        let thisDeviceOnly: Bool
    }

    private func file(_ name: StoredKeyName) -> URL { folder.appendingPathComponent(name.account + ".json") }

    /// Writes the key with mode 0600.
    public func save(_ secret: String, as name: StoredKeyName, protection: KeyProtection) throws(KeyStoreError) {
        let record = Record(
            secret: secret, biometryCurrentSet: protection.biometryCurrentSet,
            thisDeviceOnly: protection.thisDeviceOnly)
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let data = try JSONEncoder().encode(record)
            let url = file(name)
            _ = FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
            try data.write(to: url)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        } catch {
            throw .failed("the key file could not be written in \(folder.path)")
        }
    }

    /// Reads the key; a file that exists but does not decode is `unavailable`.
    public func load(_ name: StoredKeyName) throws(KeyStoreError) -> String? {
        let url = file(name)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        guard let data = try? Data(contentsOf: url), let record = try? JSONDecoder().decode(Record.self, from: data)
        else { throw .unavailable(name) }
        return record.secret
    }

    /// Removes the key file.
    public func delete(_ name: StoredKeyName) throws(KeyStoreError) {
        let url = file(name)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        do { try FileManager.default.removeItem(at: url) } catch { throw .failed("the key file could not be removed") }
    }

    /// The names and protections of the key files. A file has no biometric protection whatever was asked for, so
    /// none is claimed: the Keys panel says what actually protects the key (mode 0600, this device).
    public func entries() throws(KeyStoreError) -> [(name: StoredKeyName, protection: KeyProtection)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.compactMap { fileName in
            guard let name = StoredKeyName(account: String(fileName.dropLast(5))) else { return nil }
            let data = try? Data(contentsOf: folder.appendingPathComponent(fileName))
            let record = data.flatMap { try? JSONDecoder().decode(Record.self, from: $0) }
            return (
                name: name,
                protection: KeyProtection(biometryCurrentSet: false, thisDeviceOnly: record?.thisDeviceOnly ?? true)
            )
        }.sorted { $0.name < $1.name }
    }
}

/// One line of the Keys panel: which key, where it is kept and how it is protected; never its value.
///
/// Rule (P-DEBUG-6, P-KEY-3): the description is built from the key's name and protection only, so no part of
/// the value can reach the panel.
public struct KeyDescription: Sendable, Hashable, Identifiable {
    /// Which key.
    public let name: StoredKeyName
    /// Where it is kept.
    public let location: String
    /// How it is protected.
    public let protection: KeyProtection
    /// Whether it can be read now (false after a Face ID re-enrolment).
    public let available: Bool

    /// The key's account name.
    public var id: String { name.account }

    /// `vault` or `openrouter`.
    public var kind: String {
        switch name {
        case .vaultRead: return "vault read key"
        case .openRouter: return "OpenRouter key"
        }
    }

    /// The vault id of a vault key.
    public var vaultID: String? {
        if case .vaultRead(let vaultID) = name { return vaultID }
        return nil
    }

    /// The descriptions of every key in `store`.
    public static func all(in store: any KeyStore) -> [KeyDescription] {
        let entries = (try? store.entries()) ?? []
        return entries.map { entry in
            let available: Bool
            do { available = try store.load(entry.name) != nil } catch { available = false }
            return KeyDescription(
                name: entry.name, location: store.location, protection: entry.protection, available: available)
        }
    }

    /// One line: `vault read key (vault abcd1234) · Keychain · Face ID (current enrolment), this device only`.
    public var line: String {
        "\(name) · \(location) · \(protection.summary)" + (available ? "" : " · unavailable, import it again")
    }
}
