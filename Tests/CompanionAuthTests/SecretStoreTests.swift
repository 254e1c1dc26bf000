import CompanionAuth
import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

/// The Linux file store and the in-memory store.
@Suite struct SecretStoreTests {
    func credential(_ user: String, token: String = "ctk_file_store_secret_1") throws -> StoredCredential {
        let address = try ServerAddress(parsing: "https://certain.example")
        return StoredCredential(
            account: AccountKey(address: address, userID: user), address: address,
            credential: .headerToken(header: "X-Certain-Token", value: token), serverID: "7",
            storedAt: Date(timeIntervalSince1970: 1_764_400_000))
    }

    @Test func fileStoreRoundTripsWithMode0600AndNoPlaintextOnDisk() throws {
        let folder = SignInFixture.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileSecretStore(folder: folder)
        let first = try credential("1")
        try store.save(first)
        try store.save(try credential("2", token: "ctk_file_store_secret_2"))
        #expect(try store.load(first.account) == first)
        #expect(try store.accounts() == [first.account, try credential("2").account].sorted())
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names.filter { $0.hasSuffix(".secret") }.count == 2)
        #expect(!names.contains { $0.hasSuffix(".tmp") })
        for name in names {
            let path = folder.appendingPathComponent(name).path
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            #expect(mode == 0o600)
            let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
            #expect(!text.contains("ctk_file_store_secret"))
        }
        let folderMode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
        #expect(folderMode == 0o700)
        // Replacing is atomic and leaves one file; deleting removes it and is idempotent.
        try store.save(try credential("1", token: "ctk_file_store_secret_3"))
        #expect(try store.load(first.account)?.credential.secretValues == ["ctk_file_store_secret_3"])
        try store.delete(first.account)
        try store.delete(first.account)
        #expect(try store.load(first.account) == nil)
    }

    @Test func aDamagedOrMovedFileIsATypedErrorAndOthersSurvive() throws {
        let folder = SignInFixture.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileSecretStore(folder: folder)
        let one = try credential("1")
        let two = try credential("2", token: "ctk_file_store_secret_2")
        try store.save(one)
        try store.save(two)
        let oneFile = folder.appendingPathComponent(one.account.storageName + ".secret")
        let twoFile = folder.appendingPathComponent(two.account.storageName + ".secret")
        // Copying one account's file over another's does not open (the account is authenticated data).
        var envelope = try #require(JSONValue(data: try Data(contentsOf: oneFile))?.objectValue)
        envelope["account"] = JSONValue(data: try JSONEncoder().encode(two.account))
        try Data(JSONValue.object(envelope).jsonString().utf8).write(to: twoFile)
        #expect(throws: SecretStoreError.damaged(account: two.account.description)) { _ = try store.load(two.account) }
        try Data("garbage".utf8).write(to: oneFile)
        #expect(throws: SecretStoreError.self) { _ = try store.load(one.account) }
        // A missing key file is its own error.
        try FileManager.default.removeItem(at: folder.appendingPathComponent("secrets.key"))
        try store.save(one)
        #expect(try store.load(one.account) == one)
        #expect(!SecretStoreError.badKey(detail: "x").description.isEmpty)
    }

    @Test func inMemoryStoreKeepsOneCredentialPerAccount() throws {
        let store = InMemorySecretStore()
        store.save(try credential("1"))
        store.save(try credential("1", token: "ctk_replaced_000"))
        #expect(store.accounts().count == 1)
        #expect(store.load(try credential("1").account)?.credential.secretValues == ["ctk_replaced_000"])
        store.delete(try credential("1").account)
        #expect(store.accounts().isEmpty)
    }

    @Test func accountKeysSeparateUsersAndServers() throws {
        let a = try ServerAddress(parsing: "https://A.example.com/")
        let b = try ServerAddress(parsing: "https://a.example.com")
        #expect(AccountKey(address: a, userID: "1") == AccountKey(address: b, userID: "1"))
        #expect(AccountKey(address: a, userID: "1") != AccountKey(address: a, userID: "2"))
        let other = try ServerAddress(parsing: "https://b.example.com")
        #expect(AccountKey(address: a, userID: "1").storageName != AccountKey(address: other, userID: "1").storageName)
        #expect(AccountKey(address: a, userID: "1").storageName.count == 32)
    }
}
