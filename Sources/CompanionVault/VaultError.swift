import Foundation

/// Everything that can go wrong while importing a key or reading a vault.
///
/// Rule: no case carries key material. A case may name a vault id, a file id (`bare/data/obj-cas-imm-…`,
/// derived by a one-way HMAC), a path inside the vault or an HTTP status, never the string a person pasted.
public enum VaultError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// Why a pasted or scanned key string was refused. None of these echo the input.
    public enum KeyProblem: Sendable, Hashable {
        /// The string is empty or only whitespace.
        case empty
        /// There is no `:<vault_id>` after the key.
        case missingVaultID
        /// The vault id is not 4–24 lowercase letters and digits.
        case invalidVaultID
        /// A read key must be exactly 64 hexadecimal digits; this one had `count`.
        case wrongHexLength(count: Int)
        /// The read key contains characters that are not hexadecimal digits.
        case notHex
        /// A vault key has an empty passphrase.
        case emptyPassphrase
        /// The passphrase could not be turned into a key.
        case derivationFailed
    }

    /// The key string was refused before anything was fetched.
    case malformedKey(KeyProblem)
    /// The branch's ref answered 404: the vault does not exist, was never pushed, or the key is wrong.
    case vaultNotFound(vaultID: String)
    /// The branch index names no branch called `name`, or the vault has no branch index.
    case branchNotFound(name: String)
    /// No file or folder exists at `path` in the pulled commit.
    case pathNotFound(path: String)
    /// `files()`, `read(_:)` or `history(limit:)` was called before a successful `pull()`.
    case notPulled
    /// The source could not be reached or answered in a way that is not a vault answer.
    case transport(path: String, reason: String)
    /// The source answered with an unexpected HTTP status.
    case httpStatus(path: String, status: Int)
    /// The server refused the request with a status and a sentence of its own, kept word for word.
    case refused(path: String, status: Int, message: String)
    /// An object the walk needs is missing from the source (a 404 on `bare/data/…`).
    case objectMissing(id: String)
    /// The stored bytes do not hash to the object's content address: tampered or corrupted in transit.
    case contentAddressMismatch(id: String)
    /// Authenticated decryption failed: the object was altered, truncated or encrypted under another key.
    case decryptionFailed(path: String)
    /// The stored bytes are too short to be an encrypted object.
    case truncated(path: String)
    /// A zlib stream inside a pack-vault blob is corrupt or larger than allowed.
    case decompressionFailed(path: String)
    /// A decrypted object is not the JSON shape the format defines.
    case malformedObject(path: String, reason: String)
    /// An object declares a schema this reader does not know.
    case unsupportedSchema(path: String, schema: String)
    /// An id or entry name failed validation and was not used to build a URL or cache path.
    case invalidIdentifier(String)
    /// A file's decrypted bytes do not match the size or content hash its tree recorded.
    case integrity(path: String, reason: String)
    /// A pack zip could not be read.
    case malformedPack(name: String, reason: String)
    /// The local cache could not be read or written.
    case cache(reason: String)

    /// One sentence a person can act on.
    public var description: String {
        switch self {
        case .malformedKey(let problem):
            return "This is not a usable vault key: \(problem.sentence) Paste the whole sgit key string again."
        case .vaultNotFound(let vaultID):
            return "Vault \(vaultID) not found, never pushed, or wrong key: check the key string and the server."
        case .branchNotFound(let name):
            return "The vault has no branch named \(name): list the branches and pick one of them."
        case .pathNotFound(let path):
            return "No file at \(path) in the pulled commit: list the files to see what exists."
        case .notPulled:
            return "The vault has not been pulled yet: pull it first."
        case .transport(let path, let reason):
            return "Could not fetch \(path): \(reason). Check the connection and the server address."
        case .httpStatus(let path, let status):
            return "The server answered \(status) for \(path): check the server address and try again later."
        case .refused(let path, let status, let message):
            return "The server refused \(path) (\(status)): \(message)"
        case .objectMissing(let id):
            return "The vault is incomplete on the server: object \(id) is missing. Push it again from a full clone."
        case .contentAddressMismatch(let id):
            return "Object \(id) failed its content-address check and was discarded: it was altered or corrupted."
        case .decryptionFailed(let path):
            return "Could not decrypt \(path): it was altered, truncated or encrypted under another key."
        case .truncated(let path):
            return "Object \(path) is truncated: it is shorter than any encrypted object can be."
        case .decompressionFailed(let path):
            return "Could not decompress \(path): the compressed data inside it is corrupt."
        case .malformedObject(let path, let reason):
            return "Object \(path) is malformed (\(reason)): the vault may have been written by a broken client."
        case .unsupportedSchema(let path, let schema):
            return "Object \(path) uses schema \(schema), which this reader does not know: update the app."
        case .invalidIdentifier(let what):
            return "Refused an unsafe identifier (\(what)): the vault data is malformed."
        case .integrity(let path, let reason):
            return "File \(path) failed its integrity check (\(reason)): it was altered or corrupted."
        case .malformedPack(let name, let reason):
            return "Pack \(name) could not be read (\(reason)): the pack is corrupt or truncated."
        case .cache(let reason):
            return "The local vault cache failed (\(reason)): check free space and permissions, then pull again."
        }
    }

    /// The same sentence, for `LocalizedError` consumers.
    public var errorDescription: String? { description }
}

extension VaultError.KeyProblem {
    fileprivate var sentence: String {
        switch self {
        case .empty: return "it is empty."
        case .missingVaultID: return "the vault id after the last ':' is missing."
        case .invalidVaultID: return "the vault id must be 4 to 24 lowercase letters and digits."
        case .wrongHexLength(let count): return "a read key has 64 hexadecimal digits, this one has \(count)."
        case .notHex: return "a read key may contain only the digits 0-9 and the letters a-f."
        case .emptyPassphrase: return "the passphrase before the vault id is empty."
        case .derivationFailed: return "the passphrase could not be turned into a key."
        }
    }
}

extension VaultError {
    /// The HTTP status the server answered with, when the failure was a refusal; the traffic log
    /// records it so a list or batch request shows its true status, not a made-up one.
    public var httpStatus: Int? {
        switch self {
        case .httpStatus(_, let status), .refused(_, let status, _): return status
        default: return nil
        }
    }
}
