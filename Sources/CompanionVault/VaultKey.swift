import Foundation

/// A vault's read key and id, imported from the string a person pasted or scanned.
///
/// Accepted forms, each optionally surrounded by whitespace:
/// - `sgit_private_read_<64 hex>:<vault_id>`, `sgit_public_read_<64 hex>:<vault_id>`, the legacy `sgit_rk1_…`;
/// - bare `<64 hex>:<vault_id>`, and the web UI's `<vault_id> <64 hex>`;
/// - a vault key `sgit_private_vault_<passphrase>:<vault_id>` (legacy `sgit_vk1_…`), a bare `<passphrase>:<vault_id>`,
///   or a vault URL whose fragment is `#<passphrase>:<vault_id>`: the read key is then derived with
///   PBKDF2-HMAC-SHA256, 600,000 rounds, salt `sg-vault-v1:<vault_id>`.
///
/// The key bytes never appear in `description`, `debugDescription`, a mirror or an error.
public struct VaultKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// How the string declared itself.
    public enum Kind: String, Sendable, Hashable {
        /// `sgit_private_read_…`, legacy `sgit_rk1_…`, or a bare 64-hex read key.
        case privateRead
        /// `sgit_public_read_…`: the same bytes, declared as deliberately published.
        case publicRead
        /// A vault key (passphrase); it can also write, but this reader only derives the read key from it.
        case vault
    }

    /// The PBKDF2 rounds sgit uses for a vault key.
    public static let vaultKeyIterations = 600_000

    /// The vault id, 4–24 lowercase letters and digits.
    public let vaultID: String
    /// What kind of string it came from.
    public let kind: Kind
    /// The 32-byte AES-256 read key. Internal so only this module sees the bytes.
    let readKey: Data

    /// Creates a key from raw read-key bytes (for a keychain that stored them) and a vault id.
    public init(readKey: Data, vaultID: String, kind: Kind = .privateRead) throws(VaultError) {
        guard readKey.count == 32 else { throw .malformedKey(.wrongHexLength(count: readKey.count * 2)) }
        guard Self.isValidVaultID(vaultID) else { throw .malformedKey(.invalidVaultID) }
        self.readKey = readKey
        self.vaultID = vaultID
        self.kind = kind
    }

    /// Imports any accepted key string. A vault key costs one PBKDF2 run (600,000 rounds).
    ///
    /// - Parameter string: The key string as a person pastes it.
    /// - Parameter log: when given, receives one `keyDerivation` event (never the key).
    public init(importing string: String, log: VaultTrafficLog? = nil) throws(VaultError) {
        let started = ContinuousClock.now
        let parsed = try Self.parse(string)
        switch parsed {
        case .read(let key, let vaultID, let kind):
            self.readKey = key
            self.vaultID = vaultID
            self.kind = kind
            log?.record(
                .keyDerivation, path: "", durationMs: Self.milliseconds(since: started),
                detail: "read key imported (\(kind == .publicRead ? "public" : "private")), vault \(vaultID)")
        case .passphrase(let passphrase, let vaultID):
            guard
                let key = VaultCrypto.pbkdf2SHA256(
                    password: Data(passphrase.utf8), salt: Data("sg-vault-v1:\(vaultID)".utf8),
                    iterations: Self.vaultKeyIterations, keyLength: 32)
            else {
                log?.record(.error, path: "", detail: "key derivation failed")
                throw .malformedKey(.derivationFailed)
            }
            self.readKey = key
            self.vaultID = vaultID
            self.kind = .vault
            log?.record(
                .keyDerivation, path: "", durationMs: Self.milliseconds(since: started),
                detail: "PBKDF2-HMAC-SHA256, 600,000 rounds, vault key → read key, vault \(vaultID)")
        }
    }

    /// The read key as a read-key string, `sgit_private_read_<64 hex>:<vault_id>` (`sgit_public_read_…` for a
    /// public one): what an app keeps when a person pasted a vault key but it only reads, so the passphrase, which
    /// could also write, is never stored and the 600,000-round derivation runs once. It is key material: for a key
    /// store only, never a log, an error or a panel.
    public var readKeyString: String {
        let hex = readKey.map { String(format: "%02x", $0) }.joined()
        return (kind == .publicRead ? "sgit_public_read_" : "sgit_private_read_") + hex + ":" + vaultID
    }

    /// The file id of the named branch `current`'s ref: `bare/refs/ref-pid-muw-` + H(`sg-vault-v1:file-id:ref:<id>`).
    public var refFileID: String { "bare/refs/ref-pid-muw-" + derivedID("sg-vault-v1:file-id:ref:\(vaultID)") }

    /// The file id of the branch index: `bare/indexes/idx-pid-muw-` + H(`sg-vault-v1:file-id:branch-index:<id>`).
    public var branchIndexFileID: String {
        "bare/indexes/idx-pid-muw-" + derivedID("sg-vault-v1:file-id:branch-index:\(vaultID)")
    }

    /// H(s): the first 12 hex digits of HMAC-SHA256(read key, s).
    func derivedID(_ domain: String) -> String {
        String(VaultHex.encode(VaultCrypto.hmacSHA256(key: readKey, message: Data(domain.utf8))).prefix(12))
    }

    /// Names the vault and the kind, never the key.
    public var description: String { "VaultKey(vault: \(vaultID), \(kind.rawValue), key: <redacted>)" }
    /// Same as `description`.
    public var debugDescription: String { description }
    /// A mirror without the key bytes, so `dump()` cannot leak them.
    public var customMirror: Mirror { Mirror(self, children: ["vaultID": vaultID, "kind": kind]) }

    // MARK: Parsing

    enum Parsed {
        case read(Data, vaultID: String, kind: Kind)
        case passphrase(String, vaultID: String)
    }

    static let readPrefixes: [(String, Kind)] = [
        ("sgit_private_read_", .privateRead), ("sgit_public_read_", .publicRead), ("sgit_rk1_", .privateRead),
    ]
    static let vaultPrefixes = ["sgit_private_vault_", "sgit_vk1_"]

    /// Parses without deriving: the cheap, fuzzable half of the import.
    static func parse(_ input: String) throws(VaultError) -> Parsed {
        var text = input.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw .malformedKey(.empty) }
        for (prefix, kind) in readPrefixes where text.hasPrefix(prefix) {
            let (head, vaultID) = try split(String(text.dropFirst(prefix.count)))
            return .read(try hexKey(head), vaultID: vaultID, kind: kind)
        }
        for prefix in vaultPrefixes where text.hasPrefix(prefix) {
            let (head, vaultID) = try split(String(text.dropFirst(prefix.count)))
            guard !head.isEmpty else { throw .malformedKey(.emptyPassphrase) }
            return .passphrase(head, vaultID: vaultID)
        }
        // A vault URL (`https://host/en-gb/#<passphrase>:<vault_id>`): the fragment is the vault key.
        if let hash = text.lastIndex(of: "#"), text.hasPrefix("http://") || text.hasPrefix("https://") {
            text = String(text[text.index(after: hash)...])
            return try parse(text)
        }
        // The web UI's "format 4": `<vault_id> <64 hex>`.
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        if words.count == 2, !text.contains(":") {
            guard isValidVaultID(words[0]) else { throw .malformedKey(.invalidVaultID) }
            return .read(try hexKey(words[1]), vaultID: words[0], kind: .privateRead)
        }
        let (head, vaultID) = try split(text)
        // Bare: 64 hex → read key (as `sgit clone` routes it); all-hex of another length is a mistyped read key.
        if !head.isEmpty, head.allSatisfy(\.isHexDigit) {
            if head.count == 64 { return .read(try hexKey(head), vaultID: vaultID, kind: .privateRead) }
            if head.count >= 48 { throw .malformedKey(.wrongHexLength(count: head.count)) }
        }
        guard !head.isEmpty else { throw .malformedKey(.emptyPassphrase) }
        return .passphrase(head, vaultID: vaultID)
    }

    private static func split(_ body: String) throws(VaultError) -> (String, String) {
        guard let colon = body.lastIndex(of: ":") else { throw .malformedKey(.missingVaultID) }
        let head = String(body[..<colon])
        let vaultID = String(body[body.index(after: colon)...])
        guard !vaultID.isEmpty else { throw .malformedKey(.missingVaultID) }
        guard isValidVaultID(vaultID) else { throw .malformedKey(.invalidVaultID) }
        return (head, vaultID)
    }

    private static func hexKey(_ head: String) throws(VaultError) -> Data {
        guard head.allSatisfy(\.isHexDigit) else { throw .malformedKey(.notHex) }
        guard head.count == 64 else { throw .malformedKey(.wrongHexLength(count: head.count)) }
        guard let bytes = VaultHex.decode(head) else { throw .malformedKey(.notHex) }
        return bytes
    }

    /// `^[a-z0-9]{4,24}$`, the client's rule (the server wants 8–24 and answers 400 otherwise).
    public static func isValidVaultID(_ id: String) -> Bool {
        (4...24).contains(id.utf8.count)
            && id.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        (ContinuousClock.now - start).seconds * 1_000
    }
}

/// Lowercase hex encoding and decoding.
enum VaultHex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode(_ data: Data) -> String {
        var out = [UInt8]()
        out.reserveCapacity(data.count * 2)
        for byte in data {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> Data? {
        let bytes = Array(text.utf8)
        guard bytes.count % 2 == 0 else { return nil }
        var out = Data(capacity: bytes.count / 2)
        var index = 0
        while index < bytes.count {
            guard let high = value(bytes[index]), let low = value(bytes[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x61...0x66: return byte - 0x61 + 10
        case 0x41...0x46: return byte - 0x41 + 10
        default: return nil
        }
    }
}
