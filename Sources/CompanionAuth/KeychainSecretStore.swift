#if canImport(Security)
    import CompanionCore
    import Foundation
    import Security

    /// The Apple secret store: one generic-password Keychain item per account.
    ///
    /// Not compiled on Linux (there is no Security framework there); the Linux build uses
    /// `FileSecretStore`. Rules: the item's accessibility is an explicit choice of the app (the kit does
    /// not pick one silently, because it decides whether a locked phone or a background refresh can
    /// read the credential); the account attribute is `AccountKey.storageName`; an access group, when
    /// given, shares items with the app's extensions (Certain's share menu, C-SCOPE-2).
    public struct KeychainSecretStore: SecretStore {
        /// When an item may be read, mapped to the `kSecAttrAccessible…` constants.
        public enum Accessibility: Sendable, Hashable {
            /// Readable after the first unlock since boot, this device only (background refresh works).
            case afterFirstUnlockThisDeviceOnly
            /// Readable only while the device is unlocked, this device only.
            case whenUnlockedThisDeviceOnly

            var attribute: CFString {
                switch self {
                case .afterFirstUnlockThisDeviceOnly: return kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
                case .whenUnlockedThisDeviceOnly: return kSecAttrAccessibleWhenUnlockedThisDeviceOnly
                }
            }
        }

        /// The Keychain service name, such as the app's bundle id.
        public let service: String
        /// The access group shared with extensions, or `nil`.
        public let accessGroup: String?
        /// When items may be read.
        public let accessibility: Accessibility

        /// Creates a store; `accessibility` has no default on purpose.
        public init(service: String, accessGroup: String? = nil, accessibility: Accessibility) {
            self.service = service
            self.accessGroup = accessGroup
            self.accessibility = accessibility
        }

        private func query(_ account: AccountKey?) -> [CFString: Any] { query(storageName: account?.storageName) }

        private func query(storageName: String?) -> [CFString: Any] {
            var query: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: service]
            if let storageName { query[kSecAttrAccount] = storageName }
            if let accessGroup { query[kSecAttrAccessGroup] = accessGroup }
            return query
        }

        /// The stored credential for `account`.
        public func load(_ account: AccountKey) throws(SecretStoreError) -> StoredCredential? {
            var request = query(account)
            request[kSecReturnData] = true
            var result: CFTypeRef?
            let status = SecItemCopyMatching(request as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = result as? Data else {
                throw .unavailable(detail: "Keychain read failed with status \(status)")
            }
            guard let credential = try? JSONDecoder().decode(StoredCredential.self, from: data) else {
                throw .damaged(account: account.description)
            }
            return credential
        }

        /// Stores `credential`, replacing the account's item.
        public func save(_ credential: StoredCredential) throws(SecretStoreError) {
            guard let data = try? JSONEncoder().encode(credential) else {
                throw .unavailable(detail: "encoding the credential failed")
            }
            SecItemDelete(query(credential.account) as CFDictionary)
            var item = query(credential.account)
            item[kSecValueData] = data
            item[kSecAttrAccessible] = accessibility.attribute
            item[kSecAttrLabel] = credential.account.description
            let status = SecItemAdd(item as CFDictionary, nil)
            guard status == errSecSuccess else {
                throw .unavailable(detail: "Keychain write failed with status \(status)")
            }
        }

        /// Removes the account's item.
        public func delete(_ account: AccountKey) throws(SecretStoreError) {
            let status = SecItemDelete(query(account) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw .unavailable(detail: "Keychain delete failed with status \(status)")
            }
        }

        /// A record's item: its key in clear (to list records) and its bytes. It decodes as no credential, so
        /// `accounts()` never lists it.
        private struct RecordItem: Codable {
            var record: SecretRecordKey
            var data: Data
        }

        private func recordQuery(_ key: SecretRecordKey?) -> [CFString: Any] { query(storageName: key?.storageName) }

        /// The record's bytes.
        public func loadRecord(_ key: SecretRecordKey) throws(SecretStoreError) -> Data? {
            var request = recordQuery(key)
            request[kSecReturnData] = true
            var result: CFTypeRef?
            let status = SecItemCopyMatching(request as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = result as? Data else {
                throw .unavailable(detail: "Keychain read failed with status \(status)")
            }
            guard let item = try? JSONDecoder().decode(RecordItem.self, from: data), item.record == key else {
                throw .damaged(account: key.description)
            }
            return item.data
        }

        /// Stores a record, replacing its item.
        public func saveRecord(_ data: Data, for key: SecretRecordKey) throws(SecretStoreError) {
            guard let encoded = try? JSONEncoder().encode(RecordItem(record: key, data: data)) else {
                throw .unavailable(detail: "encoding the record failed")
            }
            SecItemDelete(recordQuery(key) as CFDictionary)
            var item = recordQuery(key)
            item[kSecValueData] = encoded
            item[kSecAttrAccessible] = accessibility.attribute
            item[kSecAttrLabel] = key.description
            let status = SecItemAdd(item as CFDictionary, nil)
            guard status == errSecSuccess else {
                throw .unavailable(detail: "Keychain write failed with status \(status)")
            }
        }

        /// Removes a record's item.
        public func deleteRecord(_ key: SecretRecordKey) throws(SecretStoreError) {
            let status = SecItemDelete(recordQuery(key) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw .unavailable(detail: "Keychain delete failed with status \(status)")
            }
        }

        /// The records of `kind` in this service.
        public func recordKeys(_ kind: SecretRecordKey.Kind) throws(SecretStoreError) -> [SecretRecordKey] {
            try itemsData().compactMap { try? JSONDecoder().decode(RecordItem.self, from: $0).record }
                .filter { $0.kind == kind }.sorted()
        }

        /// The accounts with an item in this service.
        public func accounts() throws(SecretStoreError) -> [AccountKey] {
            try itemsData().compactMap { try? JSONDecoder().decode(StoredCredential.self, from: $0).account }.sorted()
        }

        /// Every item's bytes in this service. The listing asks for attributes only, then reads each item by its
        /// account attribute: macOS's file-based keychain returns data for one item at most, whatever the limit.
        private func itemsData() throws(SecretStoreError) -> [Data] {
            var request = query(storageName: nil)
            request[kSecReturnAttributes] = true
            request[kSecMatchLimit] = kSecMatchLimitAll
            var result: CFTypeRef?
            let status = SecItemCopyMatching(request as CFDictionary, &result)
            if status == errSecItemNotFound { return [] }
            guard status == errSecSuccess, let items = result as? [[String: Any]] else {
                throw .unavailable(detail: "Keychain listing failed with status \(status)")
            }
            return items.compactMap { item in
                guard let name = item[kSecAttrAccount as String] as? String else { return nil }
                var one = query(storageName: name)
                one[kSecReturnData] = true
                var data: CFTypeRef?
                guard SecItemCopyMatching(one as CFDictionary, &data) == errSecSuccess else { return nil }
                return data as? Data
            }
        }
    }
#endif
