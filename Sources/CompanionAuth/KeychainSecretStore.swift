#if canImport(Security)
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

        private func query(_ account: AccountKey?) -> [CFString: Any] {
            var query: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: service]
            if let account { query[kSecAttrAccount] = account.storageName }
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

        /// The accounts with an item in this service.
        public func accounts() throws(SecretStoreError) -> [AccountKey] {
            var request = query(nil)
            request[kSecReturnData] = true
            request[kSecMatchLimit] = kSecMatchLimitAll
            var result: CFTypeRef?
            let status = SecItemCopyMatching(request as CFDictionary, &result)
            if status == errSecItemNotFound { return [] }
            guard status == errSecSuccess, let items = result as? [Data] else {
                throw .unavailable(detail: "Keychain listing failed with status \(status)")
            }
            return items.compactMap { try? JSONDecoder().decode(StoredCredential.self, from: $0).account }.sorted()
        }
    }
#endif
