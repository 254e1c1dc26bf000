import Foundation
import Testing

@testable import CompanionVault

/// Bad vault objects never crash: random and mutated inputs to every parser end in a value or a `VaultError`.
@Suite struct ParserFuzzTests {
    private func mutations(of seed: Data, count: Int) -> [Data] {
        var generator = SystemRandomNumberGenerator()
        var result: [Data] = [Data(), Data([0]), Data("{}".utf8), Data("[]".utf8), Data("null".utf8)]
        for _ in 0..<count {
            var bytes = [UInt8](seed)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0 where !bytes.isEmpty:
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            case 1:
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
            case 2:
                bytes.insert(
                    UInt8.random(in: 0...255, using: &generator), at: Int.random(in: 0...bytes.count, using: &generator)
                )
            default:
                bytes = (0..<Int.random(in: 0..<200, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            }
            result.append(Data(bytes))
        }
        return result
    }

    @Test func jsonParsersNeverTrap() {
        let seeds = [
            #"{"commit_id": "obj-cas-imm-5a21fda52a5b"}"#,
            #"{"schema":"commit_v1","tree_id":"obj-cas-imm-3e84fc2da0b1","parents":["obj-cas-imm-69daf611215e"],"timestamp_ms":1,"message_enc":"AAAA"}"#,
            #"{"schema":"tree_v1","entries":[{"blob_id":"obj-cas-imm-051353f5c6fb","name_enc":"x","size_enc":"y"},{"tree_id":"obj-cas-imm-1a57354f4966","name_enc":"z"}]}"#,
            #"{"schema":"branch_index_v1","branches":[{"name":"current","head_ref_id":"ref-pid-muw-3a5d094fc10e"}],"features":["packs"]}"#,
        ]
        // Whatever a parser accepts names only well-formed object ids: a mutated id is refused, never passed on.
        for seed in seeds {
            for input in mutations(of: Data(seed.utf8), count: 400) {
                if let ref = try? VaultFormat.parseRef(input) { #expect(VaultFormat.isObjectID(ref)) }
                if let commit = try? VaultFormat.parseCommit(input) {
                    #expect(([commit.treeID] + commit.parents).allSatisfy(VaultFormat.isObjectID))
                }
                for entry in (try? VaultFormat.parseTree(input)) ?? [] {
                    switch entry.kind {
                    case .file(let blobID, _, _, _, _): #expect(VaultFormat.isObjectID(blobID))
                    case .folder(let treeID): #expect(VaultFormat.isObjectID(treeID))
                    }
                }
                _ = try? VaultFormat.parseBranchIndex(input)
            }
        }
    }

    @Test func unsafeIdsAndNamesAreRefused() {
        #expect(throws: VaultError.invalidIdentifier("commit id in ref")) {
            try VaultFormat.parseRef(Data(#"{"commit_id": "../../etc/passwd"}"#.utf8))
        }
        #expect(throws: VaultError.unsupportedSchema(path: "commit", schema: "commit_v9")) {
            try VaultFormat.parseCommit(Data(#"{"schema":"commit_v9","tree_id":"obj-cas-imm-3e84fc2da0b1"}"#.utf8))
        }
        for name in ["", ".", "..", "a/b", "a\\b"] { #expect(!VaultFormat.isSafeName(name)) }
        for id in ["obj-cas-imm-ABCDEF123456", "obj-cas-imm-123", "obj-cas-imm-5a21fda52a5b/..", "x"] {
            #expect(!VaultFormat.isObjectID(id))
        }
        #expect(VaultFormat.isObjectID("obj-cas-imm-5a21fda52a5b"))
        #expect(VaultFormat.isObjectID("obj-cas-imm-" + String(repeating: "a", count: 32)))
    }

    @Test func envelopesAndPacksNeverTrap() throws {
        let key = try VaultKey(readKey: Data(repeating: 3, count: 32), vaultID: "fuzzvault")
        let seed = VaultFormat.deflateMagic + Data(repeating: 0x41, count: 60)
        for input in mutations(of: seed, count: 300) {
            _ = try? VaultFormat.decrypt(input, key: key)
            _ = try? VaultPack.members(of: input, name: "fuzz.zip")
        }
        #expect(throws: VaultError.truncated(path: "object")) { try VaultFormat.decrypt(Data(count: 27), key: key) }
        #expect(throws: VaultError.decryptionFailed(path: "object")) {
            try VaultFormat.decrypt(Data(count: 64), key: key)
        }
    }

    @Test func zipReaderReadsAStoredZip() throws {
        // A one-member ZIP_STORED archive built by hand: the shape Python's zipfile writes for sgit packs.
        let name = Data("bare/data/obj-cas-imm-000000000000".utf8)
        let content = Data("stored bytes".utf8)
        func le16(_ value: Int) -> Data { Data([UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]) }
        func le32(_ value: Int) -> Data { le16(value & 0xFFFF) + le16(value >> 16 & 0xFFFF) }
        var zip = Data([0x50, 0x4B, 0x03, 0x04]) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0) + le32(0)
        zip += le32(content.count) + le32(content.count) + le16(name.count) + le16(0) + name + content
        let directoryOffset = zip.count
        var directory = Data([0x50, 0x4B, 0x01, 0x02]) + le16(20) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0)
        directory += le32(0) + le32(content.count) + le32(content.count) + le16(name.count) + le16(0) + le16(0)
        directory += le16(0) + le16(0) + le32(0) + le32(0) + name
        zip += directory
        zip += Data([0x50, 0x4B, 0x05, 0x06]) + le16(0) + le16(0) + le16(1) + le16(1) + le32(directory.count)
        zip += le32(directoryOffset) + le16(0)
        let members = try VaultPack.members(of: zip, name: "hand.zip")
        #expect(members == [VaultPack.Member(objectID: "obj-cas-imm-000000000000", stored: content)])
        for cut in stride(from: 0, to: zip.count, by: 7) {
            _ = try? VaultPack.members(of: zip.prefix(cut), name: "cut")
        }
    }

    /// Vault rule (envelope v1 is `IV ‖ ciphertext ‖ tag`): only an object shorter than the IV and the tag together
    /// (28 bytes) is truncated; one of 28 bytes or more that does not decrypt is a decryption failure.
    @Test func truncatedMeansShorterThanTheIVAndTheTag() throws {
        let key = try VaultTestSupport.fixtureReadKey()
        #expect(throws: VaultError.truncated(path: "object")) { try VaultFormat.decrypt(Data(count: 27), key: key) }
        #expect(throws: VaultError.decryptionFailed(path: "object")) {
            try VaultFormat.decrypt(Data(count: 28), key: key)
        }
        // The same for an encrypted metadata field (base64 of a v1 envelope).
        #expect(throws: VaultError.truncated(path: "name")) {
            try VaultFormat.openField(Data(count: 27).base64EncodedString(), key: key.readKey, path: "name")
        }
        #expect(throws: VaultError.decryptionFailed(path: "name")) {
            try VaultFormat.openField(Data(count: 28).base64EncodedString(), key: key.readKey, path: "name")
        }
    }

    /// Vault rule: an unknown schema is named in the error, clipped to its first 40 characters.
    @Test func anUnknownSchemaIsClippedInTheError() {
        let schema = String(repeating: "s", count: 50)
        #expect(throws: VaultError.unsupportedSchema(path: "index", schema: String(repeating: "s", count: 40))) {
            try VaultFormat.parseBranchIndex(Data(#"{"schema":"\#(schema)"}"#.utf8))
        }
    }

    /// Vault rule: a branch of type `clone` in the branch index is not a named branch; any other type, or none, is.
    @Test func cloneBranchesAreNotNamed() throws {
        let branches = [("current", "named"), ("local", "clone"), ("old", nil)].enumerated().map { index, branch in
            #"{"name":"\#(branch.0)","head_ref_id":"ref-pid-muw-\#(index)""#
                + (branch.1.map { #","branch_type":"\#($0)""# } ?? "") + "}"
        }
        let json = #"{"schema":"branch_index_v1","branches":["# + branches.joined(separator: ",") + "]}"
        let index = try VaultFormat.parseBranchIndex(Data(json.utf8))
        #expect(index.branches.map(\.isNamed) == [true, false, true])
    }
}
