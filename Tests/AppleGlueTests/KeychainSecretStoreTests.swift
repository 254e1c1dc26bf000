#if canImport(Security) && os(macOS)
    import CompanionAuth
    import CompanionCore
    import Foundation
    import Testing

    /// `KeychainSecretStore` against the real Keychain (macOS job only: an iOS simulator test bundle without a host
    /// app has no Keychain entitlement). The same contract `FileSecretStore` meets on Linux (SecretStoreTests): one
    /// item per account, replace on save, delete is idempotent, records kept apart from credentials.
    @Suite("Apple glue: the Keychain secret store", .serialized)
    struct KeychainSecretStoreTests {
        /// A store on a service of its own, so runs never share items; `body` runs, then every item is removed.
        func withStore(_ body: (KeychainSecretStore) throws -> Void) throws {
            let store = KeychainSecretStore(
                service: "CompanionKit.AppleGlueTests.\(UUID().uuidString)", accessibility: .whenUnlockedThisDeviceOnly)
            defer {
                for account in (try? store.accounts()) ?? [] { try? store.delete(account) }
                for key in (try? store.recordKeys(.network)) ?? [] { try? store.deleteRecord(key) }
            }
            try body(store)
        }

        func credential(_ user: String, token: String) throws -> StoredCredential {
            let address = try ServerAddress(parsing: "https://keychain.example")
            return StoredCredential(
                account: AccountKey(address: address, userID: user), address: address,
                credential: .headerToken(header: "X-Test-Token", value: token), serverID: "1",
                storedAt: Date(timeIntervalSince1970: 1_764_400_000))
        }

        @Test("A credential round-trips, is replaced on save, listed by account, and deleted (twice is fine)")
        func credentialsRoundTrip() throws {
            try withStore { store in
                let first = try credential("1", token: "keychain_secret_1")
                let second = try credential("2", token: "keychain_secret_2")
                #expect(try store.load(first.account) == nil)
                try store.save(first)
                try store.save(second)
                #expect(try store.load(first.account) == first)
                #expect(try store.accounts() == [first.account, second.account].sorted())
                try store.save(try credential("1", token: "keychain_secret_3"))
                #expect(try store.load(first.account)?.credential.secretValues == ["keychain_secret_3"])
                try store.delete(first.account)
                try store.delete(first.account)
                #expect(try store.load(first.account) == nil)
                #expect(try store.accounts() == [second.account])
            }
        }

        @Test("Records are kept by key, listed by kind, never listed as accounts, and deleted")
        func recordsRoundTrip() throws {
            try withStore { store in
                let key = SecretRecordKey(.network, "https://nas.home.example")
                try store.save(try credential("1", token: "keychain_secret_4"))
                try store.saveRecord(Data("settings".utf8), for: key)
                #expect(try store.loadRecord(key) == Data("settings".utf8))
                #expect(try store.recordKeys(.network) == [key])
                #expect(try store.recordKeys(.identity).isEmpty)
                #expect(try store.accounts().count == 1, "a record is not an account")
                try store.saveRecord(Data("replaced".utf8), for: key)
                #expect(try store.loadRecord(key) == Data("replaced".utf8))
                try store.deleteRecord(key)
                #expect(try store.loadRecord(key) == nil)
            }
        }
    }
#endif
