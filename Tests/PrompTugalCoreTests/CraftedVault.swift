import CompanionCore
import CompanionCrypto
import CompanionVault
import Foundation
import Testing

/// A small vault written here in the sgit format (research sgit-vault.md §2), for the cases a vault written by sgit
/// never shows: a tree recording the wrong size or content hash (P-VAULT-13), a v1 blob whose random IV starts with
/// the v2 magic (P-VAULT-16), a pack whose member was changed (P-VAULT-17), an object that is not encrypted under
/// the key (P-VLOG-6). Its files lie in `folder` as `<file id>`, as a static host serves them; the stand-in serves
/// the folder on the SG/Send read and list routes (`StandIn.serveVault`).
struct CraftedVault {
    /// A file of the head commit: its path's name, its bytes, and what its tree entry records.
    struct File {
        let name: String
        let data: Data
        var recordedSize: Int?
        var recordedHash: String?
        /// The blob's IV (`nil`: random).
        var iv: Data?
    }

    let vaultID: String
    let readKey: Data
    let folder: URL

    /// The key string a person pastes: bare hex and the vault id.
    var keyString: String { readKey.map { String(format: "%02x", $0) }.joined() + ":" + vaultID }

    var key: VaultKey { get throws { try VaultKey(readKey: readKey, vaultID: vaultID) } }

    /// The vault key (read and write) when the vault was made from a passphrase.
    let vaultKeyString: String?

    /// A vault with a fresh random read key in a fresh folder; with `passphrase`, its read key is derived from it
    /// as sgit derives it (PBKDF2-HMAC-SHA256, 600,000 rounds, salt `sg-vault-v1:<vault id>`), so it also has a
    /// vault key.
    init(vaultID: String, passphrase: String? = nil, in root: URL) throws {
        self.vaultID = vaultID
        if let passphrase {
            readKey = try KeyDerivation.pbkdf2SHA256(
                password: Data(passphrase.utf8), salt: Data("sg-vault-v1:\(vaultID)".utf8), iterations: 600_000,
                keyLength: 32)
            vaultKeyString = "sgit_private_vault_\(passphrase):\(vaultID)"
        } else {
            var bytes = [UInt8](repeating: 0, count: 32)
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
            readKey = Data(bytes)
            vaultKeyString = nil
        }
        folder = root.appendingPathComponent(vaultID, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// `plain` in envelope v1 (IV ‖ ciphertext ‖ tag) under the read key.
    func seal(_ plain: Data, iv: Data? = nil) throws -> Data {
        try AESGCM.seal(plain, key: readKey, nonce: iv).combined
    }

    /// An encrypted metadata field: base64 of a v1 envelope of the text.
    func field(_ text: String) throws -> String { try seal(Data(text.utf8)).base64EncodedString() }

    /// Writes `stored` at `fileID`.
    func put(_ fileID: String, _ stored: Data) throws {
        let url = folder.appendingPathComponent(fileID)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try stored.write(to: url)
    }

    /// The content address of stored bytes.
    static func objectID(_ stored: Data) -> String {
        "obj-cas-imm-" + Hash.sha256(stored).map { String(format: "%02x", $0) }.joined().prefix(12)
    }

    static func hex12(_ data: Data) -> String {
        String(Hash.sha256(data).map { String(format: "%02x", $0) }.joined().prefix(12))
    }

    /// A JSON object sealed as an object; its id. Written loose unless `loose` is false.
    @discardableResult
    func object(_ json: JSONValue, loose: Bool = true) throws -> (id: String, stored: Data) {
        let stored = try seal(Data(json.jsonString().utf8))
        let id = Self.objectID(stored)
        if loose { try put("bare/data/" + id, stored) }
        return (id, stored)
    }

    /// Writes the head: blobs, one root tree, one commit and the ref. With `packed`, the objects go into one
    /// snapshot zip instead of loose files, and a branch index with the `packs` feature is written;
    /// `tamper` changes one byte of the member with that role (`blob`, `tree` or `commit`) inside the zip.
    @discardableResult
    func writeHead(_ files: [File], packed: Bool = false, tamper: String? = nil) throws -> String {
        var members: [(role: String, id: String, stored: Data)] = []
        var entries: [JSONValue] = []
        for file in files {
            let stored = try seal(file.data, iv: file.iv)
            let id = Self.objectID(stored)
            if !packed { try put("bare/data/" + id, stored) }
            members.append(("blob", id, stored))
            entries.append([
                "blob_id": .string(id), "name_enc": .string(try field(file.name)),
                "size_enc": .string(try field(String(file.recordedSize ?? file.data.count))),
                "content_hash_enc": .string(try field(file.recordedHash ?? Self.hex12(file.data))),
                "content_type_enc": .string(try field("text/plain")), "large": false,
            ])
        }
        let tree = try object(["schema": "tree_v1", "entries": .array(entries)], loose: !packed)
        members.append(("tree", tree.id, tree.stored))
        let commit = try object(
            [
                "schema": "commit_v1", "tree_id": .string(tree.id), "parents": [],
                "timestamp_ms": 1_794_105_900_000, "message_enc": .string(try field("crafted")), "branch_id": "b",
            ], loose: !packed)
        members.append(("commit", commit.id, commit.stored))
        let ref = try seal(Data(JSONValue.object(["commit_id": .string(commit.id)]).jsonString().utf8))
        try put(try key.refFileID, ref)
        guard packed else { return commit.id }
        let index: JSONValue = [
            "schema": "branch_index_v1", "features": ["packs"], "format": 1,
            "branches": [
                [
                    "branch_id": "b", "name": "current", "branch_type": "named",
                    "head_ref_id": .string(String(try key.refFileID.dropFirst("bare/refs/".count))),
                ]
            ],
        ]
        try put(try key.branchIndexFileID, try seal(Data(index.jsonString().utf8)))
        let zipped = members.map { member -> (String, Data) in
            var stored = member.stored
            if member.role == tamper { stored[stored.startIndex + 20] ^= 0x01 }
            return ("bare/data/" + member.id, stored)
        }
        try put("bare/packs/snapshots/1794105900__\(commit.id)__1.zip", Self.zip(zipped))
        return commit.id
    }

    /// The read route of `fileID` on the stand-in, as the app requests it (the file id percent-encoded).
    func route(_ fileID: String) -> String {
        "/api/vault/read/\(vaultID)/" + fileID.replacingOccurrences(of: "/", with: "%2F")
    }

    /// A crafted vault of one small file in `root`, served by the stand-in; its head commit id.
    static func served(_ name: String, in root: URL) async throws -> (vault: CraftedVault, head: String) {
        let vault = try CraftedVault(vaultID: name + String(Int.random(in: 100_000...999_999)), in: root)
        let head = try vault.writeHead([.init(name: "note.txt", data: Data("a crafted note".utf8))])
        try await StandIn.serveVault(vault)
        return (vault, head)
    }

    /// Writes a loose object that hashes to its id but is not encrypted under the key; returns its id.
    func writeUndecryptable() throws -> String {
        let stored = Data((0..<60).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
        let id = Self.objectID(stored)
        try put("bare/data/" + id, stored)
        return id
    }

    /// A zip of stored (uncompressed) members.
    static func zip(_ members: [(name: String, data: Data)]) -> Data {
        var out = Data()
        var central = Data()
        func u16(_ value: Int, _ into: inout Data) {
            into.append(contentsOf: [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)])
        }
        func u32(_ value: Int, _ into: inout Data) {
            into.append(contentsOf: (0..<4).map { UInt8(value >> ($0 * 8) & 0xFF) })
        }
        for member in members {
            let name = Data(member.name.utf8)
            let crc = crc32(member.data)
            let offset = out.count
            // Version needed, flags, method (stored), time and date, CRC-32, sizes, name length: in both headers.
            func common(_ into: inout Data) {
                u16(20, &into)
                u16(0, &into)
                u16(0, &into)
                u32(0, &into)
                u32(crc, &into)
                u32(member.data.count, &into)
                u32(member.data.count, &into)
                u16(name.count, &into)
            }
            u32(0x0403_4B50, &out)
            common(&out)
            u16(0, &out)
            out.append(name)
            out.append(member.data)
            u32(0x0201_4B50, &central)
            u16(20, &central)
            common(&central)
            for _ in 0..<4 { u16(0, &central) }
            u32(0, &central)
            u32(offset, &central)
            central.append(name)
        }
        let centralOffset = out.count
        out.append(central)
        u32(0x0605_4B50, &out)
        u16(0, &out)
        u16(0, &out)
        u16(members.count, &out)
        u16(members.count, &out)
        u32(central.count, &out)
        u32(centralOffset, &out)
        u16(0, &out)
        return out
    }

    static func crc32(_ data: Data) -> Int {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return Int(crc ^ 0xFFFF_FFFF)
    }
}
