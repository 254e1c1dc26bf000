import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

@testable import PrompTugalCore

/// Keys: their descriptions, the unavailable state, and the OpenRouter key bound to its host.
struct KeyTests {
    /// A made-up OpenRouter key (test only; no real key has this value).
    static let openRouterKey = "sk-or-v1-" + String(repeating: "7e57", count: 16)
    /// A made-up 64-hex read key (test only).
    static let readKeyHex = String(repeating: "ab12", count: 16)

    static func filledStore() -> InMemoryKeyStore {
        let store = InMemoryKeyStore()
        store.save(
            "sgit_private_read_\(readKeyHex):demovault01", as: .vaultRead(vaultID: "demovault01"), protection: .vaultKey
        )
        store.save(openRouterKey, as: .openRouter, protection: .openRouter(biometric: false))
        return store
    }

    @Test("P-DEBUG-6, P-KEY-1: each key's kind, vault id, where kept and protection; never the value, none read")
    func descriptions() {
        let store = Self.filledStore()
        let descriptions = KeyDescription.all(in: store)
        // Showing which keys exist reads no value: a Face ID item would ask for Face ID once per key.
        #expect(store.valueReads == 0)
        #expect(descriptions.map(\.kind) == ["OpenRouter key", "vault read key"])
        #expect(descriptions.map(\.vaultID) == [nil, "demovault01"])
        #expect(descriptions.allSatisfy { $0.location == "memory" && $0.available })
        let vault = descriptions[1]
        #expect(vault.protection == KeyProtection(biometryCurrentSet: true, thisDeviceOnly: true))
        #expect(
            vault.line == "vault read key (vault demovault01) · memory · Face ID (current enrolment), this device only")
        #expect(descriptions[0].line == "OpenRouter key · memory · no biometric lock, this device only")
        let text = descriptions.map { "\($0) \($0.line)" }.joined()
        #expect(!text.contains(Self.readKeyHex) && !text.contains(Self.openRouterKey) && !text.contains("sk-or-"))
    }

    @Test("P-SECRET-1: the person's Face ID choice for the OpenRouter key reaches the store's request")
    func openRouterBiometricChoice() throws {
        for biometric in [true, false] {
            let store = InMemoryKeyStore()
            try store.saveOpenRouterKey("  \(Self.openRouterKey)\n", biometric: biometric)
            #expect(
                store.entries() == [
                    KeyEntry(
                        name: .openRouter,
                        protection: KeyProtection(biometryCurrentSet: biometric, thisDeviceOnly: true))
                ], "biometric: \(biometric)")
            #expect(try store.load(.openRouter) == Self.openRouterKey)
        }
        let empty = InMemoryKeyStore()
        #expect(throws: KeyStoreError.self) { try empty.saveOpenRouterKey(" \n", biometric: true) }
        #expect(empty.entries().isEmpty)
    }

    @Test("P-KEY-2: a key that cannot be read back is 'unavailable, import it again', not an empty vault")
    func unavailable() throws {
        let store = Self.filledStore()
        store.invalidate(.vaultRead(vaultID: "demovault01"))
        #expect(throws: KeyStoreError.unavailable(.vaultRead(vaultID: "demovault01"))) {
            _ = try store.load(.vaultRead(vaultID: "demovault01"))
        }
        #expect(KeyStoreError.unavailable(.vaultRead(vaultID: "demovault01")).description.contains("Import it again"))
        let before = store.valueReads
        let vault = KeyDescription.all(in: store).first { $0.vaultID == "demovault01" }
        #expect(vault?.available == false && store.valueReads == before)
        #expect(vault?.line.hasSuffix("unavailable, import it again") == true)
    }

    @Test("P-KEY-2: a file key store keeps 0600 files in a 0700 folder; a damaged file is unavailable")
    func fileStore() throws {
        let temporary = try TemporaryFolder(prefix: "pt-keys")
        let folder = temporary.url.appendingPathComponent("keys")
        let store = FileKeyStore(folder: folder)
        try store.save(Self.openRouterKey, as: .openRouter, protection: .openRouter(biometric: true))
        #expect(try store.load(.openRouter) == Self.openRouterKey)
        let fileMode =
            try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("openrouter.json").path)[
                .posixPermissions] as? Int
        let folderMode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
        #expect(fileMode == 0o600 && folderMode == 0o700)
        #expect(try store.entries() == [KeyEntry(name: .openRouter, protection: .openRouter(biometric: false))])
        try Data("garbage".utf8).write(to: folder.appendingPathComponent("openrouter.json"))
        #expect(throws: KeyStoreError.unavailable(.openRouter)) { _ = try store.load(.openRouter) }
        #expect(try store.entries().map(\.available) == [false])
    }

    @Test("P-KEY-2: each key is filed under its own account name, and the name reads back from it")
    func accountNamesReadBack() {
        let names: [StoredKeyName] = [.vaultRead(vaultID: "demovault01"), .vault(vaultID: "demovault01"), .openRouter]
        #expect(names.map(\.account) == ["vault-read-demovault01", "vault-key-demovault01", "openrouter"])
        for name in names { #expect(StoredKeyName(account: name.account) == name, "\(name.account)") }
        for other in ["vault-key-", "vault-read-", "demovault01", ""] { #expect(StoredKeyName(account: other) == nil) }
    }

    /// Records what reached the transport.
    final class Recorder: Transport {
        let seen = Locked<[HTTPRequest]>([])
        func send(_ request: HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
            seen.withLock { $0.append(request) }
            return (HTTPResponse(status: 200, headers: ["Content-Type": "application/json"]), HTTPBody(Data("{}".utf8)))
        }
    }

    static func send(_ url: String, body: Data? = nil, recorder: Recorder) async throws -> HTTPRequest? {
        let middleware = OpenRouterKeyMiddleware { Self.openRouterKey }
        let next = recorder.chained(with: [middleware])
        let before = recorder.seen.withLock { $0.count }
        _ = try await next(
            HTTPRequest(method: body == nil ? .get : .post, url: try #require(URL(string: url)), body: body))
        return recorder.seen.withLock { $0.count > before ? $0.last : nil }
    }

    @Test("P-SECRET-2, P-OPEN-26: the key goes to https://openrouter.ai only, as a bearer header")
    func boundToHost() async throws {
        let recorder = Recorder()
        let bound = try await Self.send("https://openrouter.ai/api/v1/chat/completions", recorder: recorder)
        #expect(bound?.headers["Authorization"] == "Bearer " + Self.openRouterKey)
        for other in [
            "http://openrouter.ai/api/v1/models", "https://api.openrouter.ai/v1", "https://openrouter.ai.evil.example/",
            "https://openrouter.ai:8443/api", "https://promptugal.news/api/v1/places.json",
            "https://user@openrouter.ai/api",
        ] {
            let request = try await Self.send(other, recorder: recorder)
            let text =
                request.map { "\($0.url) \($0.headers.map { "\($0.name)=\($0.value)" }) \($0.body ?? Data())" } ?? ""
            #expect(request != nil && !text.contains(Self.openRouterKey), "\(other)")
        }
    }

    @Test("P-SECRET-2: the key is bound to a URL that itself names https://openrouter.ai; one relative to it gets none")
    func relativeURLGetsNoKey() async throws {
        // No caller builds a relative request URL (the transport resolves redirects before it sends them); the
        // middleware reads the URL's own parts, never a base it leans on (seed 7919's m-019b6d6fd1 resolved it).
        let recorder = Recorder()
        let next = recorder.chained(with: [OpenRouterKeyMiddleware { Self.openRouterKey }])
        let base = try #require(URL(string: "https://openrouter.ai/api/"))
        let relative = try #require(URL(string: "v1/models", relativeTo: base))
        #expect(relative.absoluteString == "https://openrouter.ai/api/v1/models")
        _ = try await next(HTTPRequest(url: relative))
        #expect(recorder.seen.withLock { $0.count } == 1)
        #expect(recorder.seen.withLock { $0.last?.headers["Authorization"] } == nil)
        _ = try await next(HTTPRequest(url: relative.absoluteURL))
        #expect(recorder.seen.withLock { $0.last?.headers["Authorization"] } == "Bearer " + Self.openRouterKey)
    }

    @Test("P-SECRET-2: a request elsewhere carrying the key in a header, query or body is stripped or refused")
    func neverElsewhere() async throws {
        let recorder = Recorder()
        let middleware = OpenRouterKeyMiddleware { Self.openRouterKey }
        let next = recorder.chained(with: [middleware])
        let host = try #require(URL(string: "https://promptugal.news/x"))
        _ = try await next(HTTPRequest(url: host, headers: ["Authorization": "Bearer " + Self.openRouterKey]))
        #expect(recorder.seen.withLock { $0.last?.headers["Authorization"] } == nil)
        let query = try #require(URL(string: "https://promptugal.news/x?key=" + Self.openRouterKey))
        await #expect(throws: HTTPError.self) { _ = try await next(HTTPRequest(url: query)) }
        await #expect(throws: HTTPError.self) {
            _ = try await next(
                HTTPRequest(method: .post, url: host, body: Data("{\"k\":\"\(Self.openRouterKey)\"}".utf8)))
        }
        #expect(recorder.seen.withLock { $0.count } == 1)
    }

    @Test("P-SECRET-2: a redirect from openrouter.ai to another host drops the key (the transport's redirect rule)")
    func redirectDecision() throws {
        let policy = RedirectPolicy()
        let from = try #require(URL(string: "https://openrouter.ai/api/v1/chat"))
        let headers: HTTPHeaders = ["Authorization": "Bearer " + Self.openRouterKey, "Accept": "application/json"]
        guard
            case .follow(let kept) = policy.decide(
                from: from, to: try #require(URL(string: "https://cdn.example/x")), headers: headers)
        else {
            Issue.record("expected the hop to be followed")
            return
        }
        #expect(kept["Authorization"] == nil && kept["Accept"] == "application/json")
        guard
            case .follow(let same) = policy.decide(
                from: from, to: try #require(URL(string: "https://openrouter.ai/v2")), headers: headers)
        else {
            Issue.record("expected the hop to be followed")
            return
        }
        #expect(same["Authorization"] == "Bearer " + Self.openRouterKey)
    }

    @Test("P-KEY-1, P-DEBUG-6: a file key is this device only, also when its file is damaged or does not say")
    func fileKeysStayOnThisDevice() throws {
        let temporary = try TemporaryFolder(prefix: "pt-keys")
        let folder = temporary.url.appendingPathComponent("keys")
        let store = FileKeyStore(folder: folder)
        try store.save(Self.openRouterKey, as: .openRouter, protection: .openRouter(biometric: false))
        try Data("garbage".utf8).write(to: folder.appendingPathComponent("openrouter.json"))
        try Data(#"{"secret":"x"}"#.utf8).write(to: folder.appendingPathComponent("vault-read-demovault01.json"))
        let thisDevice = KeyProtection(biometryCurrentSet: false, thisDeviceOnly: true)
        #expect(
            try store.entries() == [
                KeyEntry(name: .openRouter, protection: thisDevice, available: false),
                KeyEntry(name: .vaultRead(vaultID: "demovault01"), protection: thisDevice),
            ])
    }

    @Test("P-KEY-2: a name reads back from its account whatever its vault id's length, one character included")
    func shortVaultIDsReadBack() {
        for name: StoredKeyName in [.vaultRead(vaultID: "x"), .vault(vaultID: "x")] {
            #expect(StoredKeyName(account: name.account) == name, "\(name.account)")
        }
    }
}
