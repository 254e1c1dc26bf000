import Foundation

/// The sgit object formats: ids, envelopes, and the ref, commit, tree and index parsers.
///
/// Every parser takes `Data` and either returns a value or throws a `VaultError`; none traps on any input, so each
/// is a fuzzing entry point.
public enum VaultFormat {
    /// The envelope-v2 magic: `\0sgz1`, then a v1 envelope of a zlib stream.
    public static let deflateMagic = Data([0x00, 0x73, 0x67, 0x7A, 0x31])
    /// The largest plaintext a v2 envelope may inflate to when no size is known (1 GiB).
    public static let defaultInflateLimit = 1 << 30

    /// Whether `id` is an object id: `obj-cas-imm-` and 12 or 32 lowercase hex digits.
    public static func isObjectID(_ id: String) -> Bool {
        let prefix = "obj-cas-imm-"
        guard id.hasPrefix(prefix) else { return false }
        let hex = id.utf8.dropFirst(prefix.utf8.count)
        return (hex.count == 12 || hex.count == 32)
            && hex.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Whether `name` can be one component of a path: not empty, `.` or `..`, and without `/`, `\` or NUL.
    public static func isSafeName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\\")
            && !name.utf8.contains(0)
    }

    /// Checks that sha256(`stored`) starts with the hex of object id `id`, at the id's own width.
    public static func verifyContentAddress(id: String, stored: Data) throws(VaultError) {
        guard isObjectID(id) else { throw .invalidIdentifier("object id") }
        let expected = id.dropFirst("obj-cas-imm-".count)
        let actual = VaultHex.encode(VaultCrypto.sha256(stored))
        guard actual.hasPrefix(expected) else { throw .contentAddressMismatch(id: id) }
    }

    /// Decrypts a stored object: envelope v1 (`IV ‖ ciphertext ‖ tag`), or v2 (`\0sgz1` + v1 of a zlib stream).
    ///
    /// A v2-looking object whose tag fails is retried as v1, as sgit does (a random IV can start with the magic).
    static func open(
        _ stored: Data, key: Data, path: String, inflateLimit: Int = defaultInflateLimit
    ) throws(VaultError) -> (plaintext: Data, compressed: Bool) {
        if stored.count >= deflateMagic.count + 28, stored.prefix(deflateMagic.count) == deflateMagic {
            if let inner = VaultCrypto.openAESGCM(combined: Data(stored.dropFirst(deflateMagic.count)), key: key) {
                guard let plain = VaultCrypto.inflateStream(inner, windowBits: 15, limit: inflateLimit) else {
                    throw .decompressionFailed(path: path)
                }
                return (plain, true)
            }
        }
        guard stored.count >= 28 else { throw .truncated(path: path) }
        guard let plain = VaultCrypto.openAESGCM(combined: stored, key: key) else {
            throw .decryptionFailed(path: path)
        }
        return (plain, false)
    }

    /// Decrypts the stored bytes of any object (envelope v1 or v2) with `key`: a fuzzing and benchmark entry point.
    /// It does not check the content address; `verifyContentAddress(id:stored:)` does.
    public static func decrypt(_ stored: Data, key: VaultKey, inflateLimit: Int = defaultInflateLimit)
        throws(VaultError) -> Data
    {
        try open(stored, key: key.readKey, path: "object", inflateLimit: inflateLimit).plaintext
    }

    /// Decrypts one `*_enc` metadata field: standard base64 of a v1 envelope holding UTF-8 text.
    static func openField(_ base64: String, key: Data, path: String) throws(VaultError) -> String {
        guard let stored = Data(base64Encoded: base64) else {
            throw .malformedObject(path: path, reason: "an encrypted field is not base64")
        }
        guard stored.count >= 28 else { throw .truncated(path: path) }
        guard let plain = VaultCrypto.openAESGCM(combined: stored, key: key) else {
            throw .decryptionFailed(path: path)
        }
        guard let text = String(data: plain, encoding: .utf8) else {
            throw .malformedObject(path: path, reason: "an encrypted field is not UTF-8")
        }
        return text
    }

    // MARK: Parsers

    /// Parses a decrypted ref, `{"commit_id": "obj-cas-imm-…"}`, and returns the commit id.
    public static func parseRef(_ plaintext: Data, path: String = "ref") throws(VaultError) -> String {
        let ref: RawRef = try decode(plaintext, path: path)
        guard let id = ref.commitID else { throw .malformedObject(path: path, reason: "no commit_id") }
        guard isObjectID(id) else { throw .invalidIdentifier("commit id in ref") }
        return id
    }

    /// Parses a decrypted commit (`commit_v1` or `commit_v2`).
    public static func parseCommit(_ plaintext: Data, path: String = "commit") throws(VaultError) -> CommitRecord {
        let raw: RawCommit = try decode(plaintext, path: path)
        if let schema = raw.schema, schema != "commit_v1", schema != "commit_v2" {
            throw .unsupportedSchema(path: path, schema: String(schema.prefix(40)))
        }
        guard let tree = raw.tree_id else { throw .malformedObject(path: path, reason: "no tree_id") }
        guard isObjectID(tree) else { throw .invalidIdentifier("tree id in commit") }
        let parents = raw.parents ?? []
        for parent in parents where !isObjectID(parent) { throw .invalidIdentifier("parent id in commit") }
        return CommitRecord(
            treeID: tree, parents: parents, timestampMs: raw.timestamp_ms ?? 0, messageEnc: raw.message_enc,
            plainMessage: raw.message, branchID: raw.branch_id)
    }

    /// Parses a decrypted tree (`tree_v1`), validating every id it names.
    public static func parseTree(_ plaintext: Data, path: String = "tree") throws(VaultError) -> [TreeEntryRecord] {
        let raw: RawTree = try decode(plaintext, path: path)
        if let schema = raw.schema, schema != "tree_v1" {
            throw .unsupportedSchema(path: path, schema: String(schema.prefix(40)))
        }
        guard let entries = raw.entries else { throw .malformedObject(path: path, reason: "no entries") }
        var result: [TreeEntryRecord] = []
        result.reserveCapacity(entries.count)
        for entry in entries {
            guard let name = entry.name_enc else { throw .malformedObject(path: path, reason: "entry without name") }
            if let blob = entry.blob_id {
                guard isObjectID(blob) else { throw .invalidIdentifier("blob id in tree") }
                guard let size = entry.size_enc else { throw .malformedObject(path: path, reason: "file without size") }
                result.append(
                    TreeEntryRecord(
                        nameEnc: name,
                        kind: .file(
                            blobID: blob, sizeEnc: size, contentHashEnc: entry.content_hash_enc,
                            contentTypeEnc: entry.content_type_enc, large: entry.large ?? false)))
            } else if let tree = entry.tree_id {
                guard isObjectID(tree) else { throw .invalidIdentifier("tree id in tree") }
                result.append(TreeEntryRecord(nameEnc: name, kind: .folder(treeID: tree)))
            } else {
                throw .malformedObject(path: path, reason: "entry is neither file nor folder")
            }
        }
        return result
    }

    /// Parses a decrypted branch index (`branch_index_v1`).
    public static func parseBranchIndex(_ plaintext: Data, path: String = "index") throws(VaultError) -> BranchIndex {
        let raw: RawIndex = try decode(plaintext, path: path)
        if let schema = raw.schema, schema != "branch_index_v1" {
            throw .unsupportedSchema(path: path, schema: String(schema.prefix(40)))
        }
        let branches = (raw.branches ?? []).compactMap { branch -> BranchIndex.Branch? in
            guard let name = branch.name, let ref = branch.head_ref_id else { return nil }
            return BranchIndex.Branch(
                branchID: branch.branch_id ?? "", name: name, isNamed: branch.branch_type != "clone", headRefID: ref)
        }
        return BranchIndex(branches: branches, features: raw.features ?? [], format: raw.format ?? 1)
    }

    private static func decode<T: Decodable>(_ data: Data, path: String) throws(VaultError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw .malformedObject(path: path, reason: "not the expected JSON")
        }
    }

    private struct RawRef: Decodable {
        let commitID: String?
        enum CodingKeys: String, CodingKey { case commitID = "commit_id" }
    }

    // swift-format-ignore: AlwaysUseLowerCamelCase
    private struct RawCommit: Decodable {
        let schema: String?
        let tree_id: String?
        let parents: [String]?
        let timestamp_ms: Int64?
        let message_enc: String?
        let message: String?
        let branch_id: String?
    }

    // swift-format-ignore: AlwaysUseLowerCamelCase
    private struct RawEntry: Decodable {
        let blob_id: String?
        let tree_id: String?
        let name_enc: String?
        let size_enc: String?
        let content_hash_enc: String?
        let content_type_enc: String?
        let large: Bool?
    }

    private struct RawTree: Decodable {
        let schema: String?
        let entries: [RawEntry]?
    }

    // swift-format-ignore: AlwaysUseLowerCamelCase
    private struct RawBranch: Decodable {
        let branch_id: String?
        let name: String?
        let branch_type: String?
        let head_ref_id: String?
    }

    private struct RawIndex: Decodable {
        let schema: String?
        let branches: [RawBranch]?
        let features: [String]?
        let format: Int?
    }

    /// A parsed commit; its message is still encrypted.
    public struct CommitRecord: Sendable, Hashable {
        /// The root tree.
        public let treeID: String
        /// Parent commits: none for the root, two for a merge.
        public let parents: [String]
        /// Milliseconds since 1970.
        public let timestampMs: Int64
        /// The encrypted message (base64 of a v1 envelope), when present.
        public let messageEnc: String?
        /// A plaintext message, as old commits carry.
        public let plainMessage: String?
        /// The branch that wrote it (metadata only).
        public let branchID: String?
    }

    /// One parsed tree entry; its name and metadata are still encrypted.
    public struct TreeEntryRecord: Sendable, Hashable {
        /// What an entry points at.
        public enum Kind: Sendable, Hashable {
            /// A file: its blob and its encrypted size, content hash and type.
            case file(blobID: String, sizeEnc: String, contentHashEnc: String?, contentTypeEnc: String?, large: Bool)
            /// A folder: its sub-tree.
            case folder(treeID: String)
        }
        /// The encrypted name.
        public let nameEnc: String
        /// File or folder.
        public let kind: Kind
    }

    /// A parsed branch index.
    public struct BranchIndex: Sendable, Hashable {
        /// One branch.
        public struct Branch: Sendable, Hashable {
            /// The branch id (metadata).
            public let branchID: String
            /// The branch name, e.g. `current`.
            public let name: String
            /// `true` for a named (shared) branch, `false` for a clone branch.
            public let isNamed: Bool
            /// The ref's file name under `bare/refs/`.
            public let headRefID: String
        }
        /// Every branch listed.
        public let branches: [Branch]
        /// Feature flags such as `packs` or `blob-deflate`.
        public let features: [String]
        /// 1 for 12-hex ids, 2 for 32-hex ids.
        public let format: Int
    }
}
