import CompanionCore
import Foundation

/// Keys in files of a 0700 folder, each file 0600, for the terminal client (which has no Keychain).
///
/// Each file is `{"secret", "biometryCurrentSet", "thisDeviceOnly"}`. A file has no biometric protection whatever
/// was asked for, so none is claimed: the Keys panel says what actually protects the key (mode 0600, this
/// device). A file that does not read as a key is `unavailable`.
public struct FileKeyStore: KeyStore {
    /// The folder.
    public let folder: URL

    /// Keys in `folder`.
    public init(folder: URL) { self.folder = folder }

    /// "file (0600)".
    public var location: String { "file (0600)" }

    private func file(_ name: StoredKeyName) -> URL { folder.appendingPathComponent(name.account + ".json") }

    /// Writes the key with mode 0600.
    public func save(_ secret: String, as name: StoredKeyName, protection: KeyProtection) throws(KeyStoreError) {
        let record: JSONValue = [
            "secret": .string(secret), "biometryCurrentSet": .bool(protection.biometryCurrentSet),
            "thisDeviceOnly": .bool(protection.thisDeviceOnly),
        ]
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let url = file(name)
            _ = FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
            try Data(record.jsonString().utf8).write(to: url)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        } catch {
            throw .failed("the key file could not be written in \(folder.path)")
        }
    }

    /// The record in `url`, `nil` when it is not one.
    private static func record(at url: URL) -> JSONValue? {
        guard let data = try? Data(contentsOf: url), let value = JSONValue(data: data),
            value["secret"]?.stringValue != nil
        else { return nil }
        return value
    }

    /// Reads the key; a file that exists but does not read as a key is `unavailable`.
    public func load(_ name: StoredKeyName) throws(KeyStoreError) -> String? {
        let url = file(name)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        guard let secret = Self.record(at: url)?["secret"]?.stringValue else { throw .unavailable(name) }
        return secret
    }

    /// Removes the key file.
    public func delete(_ name: StoredKeyName) throws(KeyStoreError) {
        let url = file(name)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        do { try FileManager.default.removeItem(at: url) } catch { throw .failed("the key file could not be removed") }
    }

    /// The key files' names, what protects them, and whether each still reads as a key.
    public func entries() throws(KeyStoreError) -> [KeyEntry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.compactMap { fileName -> KeyEntry? in
            guard let name = StoredKeyName(account: String(fileName.dropLast(5))) else { return nil }
            let record = Self.record(at: folder.appendingPathComponent(fileName))
            return KeyEntry(
                name: name,
                protection: KeyProtection(
                    biometryCurrentSet: false, thisDeviceOnly: record?["thisDeviceOnly"]?.boolValue ?? true),
                available: record != nil)
        }.sorted { $0.name < $1.name }
    }
}
