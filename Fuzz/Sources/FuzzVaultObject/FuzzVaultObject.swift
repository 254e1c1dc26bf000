import CompanionVault
import Foundation
import FuzzSupport

/// libFuzzer's per-input function: must never crash; every property `check` states is a bug when it fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { Fuzz.input(data, size, check) }

/// The program entry (SwiftPM links `main` to `FuzzVaultObject_main`): runs libFuzzer's driver.
@_cdecl("FuzzVaultObject_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv) { data, size in fuzzOneInput(data, size) }
}

/// The decrypted-object parsers (ref, commit, tree, branch index), the pack reader and the key importer: each
/// returns a value or throws a `VaultError`, and every id a parser hands back is a valid object id.
func check(_ bytes: Data) {
    if let id = try? VaultFormat.parseRef(bytes) { require(VaultFormat.isObjectID(id), "ref gave a bad id") }
    if let commit = try? VaultFormat.parseCommit(bytes) {
        require(VaultFormat.isObjectID(commit.treeID), "commit gave a bad tree id")
        require(commit.parents.allSatisfy(VaultFormat.isObjectID), "commit gave a bad parent id")
    }
    if let entries = try? VaultFormat.parseTree(bytes) {
        for entry in entries {
            switch entry.kind {
            case .file(let blob, _, _, _, _): require(VaultFormat.isObjectID(blob), "tree gave a bad blob id")
            case .folder(let tree): require(VaultFormat.isObjectID(tree), "tree gave a bad tree id")
            }
        }
    }
    _ = try? VaultFormat.parseBranchIndex(bytes)
    if let members = try? VaultPack.members(of: bytes, name: "fuzz.zip") {
        for member in members {
            require(VaultFormat.isObjectID(member.objectID), "pack gave a bad object id")
            require(member.stored.count <= bytes.count, "pack member larger than the pack")
        }
    }
    // Read keys only: a vault key (any other accepted form) costs a 600,000-round PBKDF2 by design.
    let text = String(decoding: bytes, as: UTF8.self)
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    let isReadKey = ["sgit_private_read_", "sgit_public_read_", "sgit_rk1_"].contains { trimmed.hasPrefix($0) }
    if isReadKey, let key = try? VaultKey(importing: text) {
        require(VaultKey.isValidVaultID(key.vaultID), "imported key has a bad vault id")
        require(!key.description.contains(text), "the key's description shows the key")
    }
}
