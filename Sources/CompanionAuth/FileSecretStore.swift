import CompanionCore
import CompanionCrypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The Linux secret store: one AES-256-GCM sealed file per account in a folder, under a key file.
///
/// It exists because Linux has no Keychain; an app on Apple platforms uses `KeychainSecretStore` (it compiles there
/// too, for tools and tests).
///
/// Rules and reasons:
/// - Records that are not credentials (a server's network settings, a client identity: `SecretRecordKey`) are
///   files of the same kind in the same folder, sealed against their own key.
/// - One file per server+account, named by `AccountKey.storageName` (a hash), so user names stay out of
///   listings and one damaged file never hides the others.
/// - Every file (and the key file) is created with mode 0600, and the folder with 0700: only the owner reads.
/// - A write goes to a temporary file in the same folder, is flushed, then renamed over the old one:
///   a crash leaves either the old or the new credential, never half of one.
/// - The content is sealed with AES-GCM under a 32-byte key from `<folder>/secrets.key` (created from
///   `SecureRandom` on first use), and the account's raw key is the authenticated data, so a file copied
///   under another account's name does not open.
public struct FileSecretStore: SecretStore {
    /// The folder holding the key file and one `.secret` file per account.
    public let folder: URL

    /// Creates a store in `folder` (created on the first write).
    public init(folder: URL) { self.folder = folder }

    private var keyFile: URL { folder.appendingPathComponent("secrets.key") }

    private func file(for account: AccountKey) -> URL {
        folder.appendingPathComponent(account.storageName + ".secret")
    }

    /// Decrypts and decodes the account's file.
    public func load(_ account: AccountKey) throws(SecretStoreError) -> StoredCredential? {
        let url = file(for: account)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try open(url, expecting: account)
    }

    /// Seals `credential` and atomically replaces the account's file.
    public func save(_ credential: StoredCredential) throws(SecretStoreError) {
        try prepareFolder()
        let key = try loadOrCreateKey()
        let plain: Data
        do {
            plain = try JSONEncoder().encode(credential)
        } catch {
            throw .unavailable(detail: "encoding the credential failed")
        }
        let sealed: Data
        do {
            sealed = try AESGCM.seal(plain, key: key, authenticating: Data(credential.account.rawValue.utf8)).combined
        } catch {
            throw .unavailable(detail: "encryption failed")
        }
        let envelope = Envelope(account: credential.account, sealed: sealed.base64EncodedString())
        guard let data = try? JSONEncoder().encode(envelope) else {
            throw .unavailable(detail: "encoding the file failed")
        }
        try Self.writeAtomically(data, to: file(for: credential.account))
    }

    /// Deletes the account's file.
    public func delete(_ account: AccountKey) throws(SecretStoreError) {
        let url = file(for: account)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw .unavailable(detail: "deleting a stored credential failed")
        }
    }

    /// The accounts whose files open (damaged files are skipped, not deleted).
    public func accounts() throws(SecretStoreError) -> [AccountKey] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        var result: [AccountKey] = []
        for name in names where name.hasSuffix(".secret") {
            let url = folder.appendingPathComponent(name)
            guard let data = try? Data(contentsOf: url),
                let envelope = try? JSONDecoder().decode(Envelope.self, from: data)
            else { continue }
            result.append(envelope.account)
        }
        return result.sorted()
    }

    /// What a file holds: the account in clear (to list accounts) and the sealed credential.
    private struct Envelope: Codable {
        var account: AccountKey
        var sealed: String
    }

    /// What a record's file holds: its key in clear (to list records) and the sealed bytes. It has no `account`,
    /// so `accounts()` never lists it.
    private struct RecordEnvelope: Codable {
        var record: SecretRecordKey
        var sealed: String
    }

    private func file(for record: SecretRecordKey) -> URL {
        folder.appendingPathComponent(record.storageName + ".secret")
    }

    /// Decrypts the record's file.
    public func loadRecord(_ key: SecretRecordKey) throws(SecretStoreError) -> Data? {
        let url = file(for: key)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        guard let data = try? Data(contentsOf: url) else { throw .unavailable(detail: "reading a stored record") }
        guard let envelope = try? JSONDecoder().decode(RecordEnvelope.self, from: data), envelope.record == key,
            let sealed = Data(base64Encoded: envelope.sealed)
        else { throw .damaged(account: key.description) }
        let secretKey = try loadKey()
        do {
            return try AESGCM.open(SealedBox(combined: sealed), key: secretKey, authenticating: Data(key.rawValue.utf8))
        } catch {
            throw .damaged(account: key.description)
        }
    }

    /// Seals `data` and atomically replaces the record's file.
    public func saveRecord(_ data: Data, for key: SecretRecordKey) throws(SecretStoreError) {
        try prepareFolder()
        let secretKey = try loadOrCreateKey()
        let sealed: Data
        do {
            sealed = try AESGCM.seal(data, key: secretKey, authenticating: Data(key.rawValue.utf8)).combined
        } catch {
            throw .unavailable(detail: "encryption failed")
        }
        guard let file = try? JSONEncoder().encode(RecordEnvelope(record: key, sealed: sealed.base64EncodedString()))
        else { throw .unavailable(detail: "encoding the file failed") }
        try Self.writeAtomically(file, to: self.file(for: key))
    }

    /// Deletes the record's file.
    public func deleteRecord(_ key: SecretRecordKey) throws(SecretStoreError) {
        let url = file(for: key)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw .unavailable(detail: "deleting a stored record failed")
        }
    }

    /// The records of `kind` whose files can be read (damaged files are skipped, not deleted).
    public func recordKeys(_ kind: SecretRecordKey.Kind) throws(SecretStoreError) -> [SecretRecordKey] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        var result: [SecretRecordKey] = []
        for name in names where name.hasSuffix(".secret") {
            guard let data = try? Data(contentsOf: folder.appendingPathComponent(name)),
                let envelope = try? JSONDecoder().decode(RecordEnvelope.self, from: data), envelope.record.kind == kind
            else { continue }
            result.append(envelope.record)
        }
        return result.sorted()
    }

    private func open(_ url: URL, expecting account: AccountKey) throws(SecretStoreError) -> StoredCredential {
        guard let data = try? Data(contentsOf: url) else { throw .unavailable(detail: "reading a stored credential") }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: data), envelope.account == account,
            let sealed = Data(base64Encoded: envelope.sealed)
        else { throw .damaged(account: account.description) }
        let key = try loadKey()
        do {
            let box = try SealedBox(combined: sealed)
            let plain = try AESGCM.open(box, key: key, authenticating: Data(account.rawValue.utf8))
            return try JSONDecoder().decode(StoredCredential.self, from: plain)
        } catch {
            throw .damaged(account: account.description)
        }
    }

    private func prepareFolder() throws(SecretStoreError) {
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .unavailable(detail: "creating the folder failed")
        }
    }

    private func loadKey() throws(SecretStoreError) -> Data {
        guard let key = try? Data(contentsOf: keyFile) else { throw .badKey(detail: "the key file is missing") }
        guard key.count == AESGCM.keyLength else { throw .badKey(detail: "the key file has the wrong size") }
        return key
    }

    private func loadOrCreateKey() throws(SecretStoreError) -> Data {
        if FileManager.default.fileExists(atPath: keyFile.path) { return try loadKey() }
        let key: Data
        do {
            key = try SecureRandom.bytes(AESGCM.keyLength)
        } catch {
            throw .badKey(detail: "no secure randomness for a new key")
        }
        try Self.writeAtomically(key, to: keyFile)
        return key
    }

    /// Writes `data` to a fresh 0600 temporary file beside `url`, flushes it and renames it over `url`.
    static func writeAtomically(_ data: Data, to url: URL) throws(SecretStoreError) {
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UInt64.random(in: 0 ... .max)).tmp")
        let descriptor = Foundation.open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw .unavailable(detail: "creating a temporary file failed") }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return true }
            while written < buffer.count {
                let count = write(descriptor, base + written, buffer.count - written)
                if count <= 0 { return false }
                written += count
            }
            return true
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard ok, synced, rename(temporary.path, url.path) == 0 else {
            unlink(temporary.path)
            throw .unavailable(detail: "writing a stored credential failed")
        }
    }
}
