import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

@testable import CompanionVault

/// Vaults made in this run by the real `sgit` CLI on a real SG/Send server on 127.0.0.1.
///
/// These tests FAIL when the server or the manifest is missing: run, in order,
/// `bash Servers/sgit/install.sh`, `eval "$(bash Servers/sgit/start.sh)"`, `eval "$(bash Servers/sgit/make-vaults.sh)"`.
struct ServerEnvironment {
    struct Commit {
        let message: String
        let files: [String: (sha256: String, size: Int)]
        let isMerge: Bool
    }
    struct Vault {
        let name: String
        let vaultID: String
        let keyString: String
        let readKeyString: String
        let vaultKeyString: String
        let packs: Bool
        let branches: [String: [Commit]]
        let workingCopy: String
    }

    let server: URL
    let cli: String?
    let vaults: [String: Vault]

    init() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let serverText = environment["SGIT_SERVER_URL"], let server = URL(string: serverText) else {
            throw VaultTestSupport.Failure(
                description: "SGIT_SERVER_URL is not set: eval \"$(bash Servers/sgit/start.sh)\" before swift test")
        }
        guard let manifestPath = environment["SGIT_VAULTS_MANIFEST"] else {
            throw VaultTestSupport.Failure(
                description: "SGIT_VAULTS_MANIFEST is not set: eval \"$(bash Servers/sgit/make-vaults.sh)\" first")
        }
        self.server = server
        self.cli = environment["SGIT_CLI"]
        let data = try Data(contentsOf: URL(fileURLWithPath: manifestPath))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var vaults: [String: Vault] = [:]
        for entry in (root["vaults"] as? [[String: Any]]) ?? [] {
            var branches: [String: [Commit]] = [:]
            for (name, commits) in (entry["branches"] as? [String: [[String: Any]]]) ?? [:] {
                branches[name] = commits.map { commit in
                    var files: [String: (String, Int)] = [:]
                    for (path, info) in (commit["files"] as? [String: [String: Any]]) ?? [:] {
                        files[path] = ((info["sha256"] as? String) ?? "", (info["size"] as? Int) ?? -1)
                    }
                    return Commit(
                        message: (commit["message"] as? String) ?? "", files: files,
                        isMerge: (commit["merge"] as? Bool) ?? false)
                }
            }
            let name = (entry["name"] as? String) ?? ""
            vaults[name] = Vault(
                name: name, vaultID: (entry["vault_id"] as? String) ?? "",
                keyString: (entry["key_string"] as? String) ?? "",
                readKeyString: (entry["read_key_string"] as? String) ?? "",
                vaultKeyString: (entry["vault_key_string"] as? String) ?? "", packs: (entry["packs"] as? Bool) ?? false,
                branches: branches, workingCopy: (entry["working_copy"] as? String) ?? "")
        }
        self.vaults = vaults
    }

    func vault(_ name: String) throws -> Vault {
        try #require(vaults[name], "the manifest has no vault named \(name): regenerate it with make-vaults.sh")
    }
}

@Suite struct ServerVaultTests {
    let environment: ServerEnvironment

    init() throws { environment = try ServerEnvironment() }

    private func sha256(_ data: Data) -> String { VaultHex.encode(VaultCrypto.sha256(data)) }

    /// Pulls `branch`, then checks the first-parent history and every file of every commit byte for byte.
    private func checkAllCommits(of vault: SGitVault, branch: String, expected: [ServerEnvironment.Commit]) async throws
    {
        try await vault.pull(branch: branch == "current" ? nil : branch)
        let history = try await vault.history(limit: 100)
        #expect(history.count == expected.count, "\(branch): commit count")
        for (commit, want) in zip(history, expected) {
            if want.isMerge {
                #expect(commit.parents.count == 2, "a merge commit has two parents")
            }
            #expect(commit.message == want.message)
            let files = try await vault.files(at: commit.id)
            #expect(Set(files.map(\.path)) == Set(want.files.keys), "\(branch) \(want.message): paths")
            for file in files {
                let bytes = try await vault.read(file.path, at: commit.id)
                #expect(bytes.count == want.files[file.path]?.size, "\(file.path) size")
                #expect(sha256(bytes) == want.files[file.path]?.sha256, "\(file.path) bytes")
            }
        }
    }

    private func open(_ vault: ServerEnvironment.Vault, key: String? = nil, log: VaultTrafficLog = VaultTrafficLog())
        throws -> (SGitVault, URL)
    {
        let cache = try VaultTestSupport.scratch(vault.name)
        let vaultKey = try VaultKey(importing: key ?? vault.keyString, log: log)
        let reader = try SGitVault(
            key: vaultKey, source: HTTPVaultSource(server: environment.server, policy: .allowingInsecureLoopback),
            cache: cache, log: log)
        return (reader, cache)
    }

    @Test func mainVaultReadsBackByteIdenticalAtEveryCommit() async throws {
        let manifest = try environment.vault("main")
        let (vault, cache) = try open(manifest)
        defer { try? FileManager.default.removeItem(at: cache) }
        try await checkAllCommits(of: vault, branch: "current", expected: manifest.branches["current"] ?? [])
        let files = try await vault.files()
        #expect(files.contains { $0.path == "unicodé/naïve ✓ file.txt" })
        #expect(files.contains { $0.path == "docs/renamed/intro-moved.md" })
        #expect(!files.contains { $0.path == "data/blob.bin" })
        let large = try #require(files.first { $0.path == "big/large.bin" })
        #expect(large.size >= 10 * 1_048_576)
        #expect(try await vault.read("empty.txt").isEmpty)
    }

    @Test func batchReadsGiveTheSameBytes() async throws {
        let manifest = try environment.vault("main")
        let cache = try VaultTestSupport.scratch("batch")
        defer { try? FileManager.default.removeItem(at: cache) }
        let log = VaultTrafficLog()
        let vault = try SGitVault(
            key: VaultKey(importing: manifest.keyString),
            source: HTTPVaultSource(server: environment.server, batchSize: 50, policy: .allowingInsecureLoopback),
            cache: cache, log: log)
        try await checkAllCommits(of: vault, branch: "current", expected: manifest.branches["current"] ?? [])
        #expect(log.events.contains { $0.kind == .request && $0.path.contains("batch of") })
    }

    /// The default way to read a whole vault: `pull(eachFile:)` through the batch route of the real server.
    @Test func streamingPullHandsOverEveryFileOfTheHeadByteIdentical() async throws {
        let manifest = try environment.vault("main")
        let (vault, cache) = try open(manifest)
        defer { try? FileManager.default.removeItem(at: cache) }
        let handed = HandedOver()
        let head = try await vault.pull { file, data in handed.receive(file, data) }
        let want = try #require(manifest.branches["current"]?.first)
        #expect(head.message == want.message)
        #expect(Set(handed.byPath.keys) == Set(want.files.keys))
        #expect(handed.count == want.files.count)
        for (path, data) in handed.byPath {
            #expect(data.count == want.files[path]?.size, "\(path) size")
            #expect(sha256(data) == want.files[path]?.sha256, "\(path) bytes")
        }
    }

    @Test func emptyVaultByVaultKey() async throws {
        let manifest = try environment.vault("empty")
        #expect(manifest.keyString.hasPrefix("sgit_private_vault_"))
        let (vault, cache) = try open(manifest)
        defer { try? FileManager.default.removeItem(at: cache) }
        try await checkAllCommits(of: vault, branch: "current", expected: manifest.branches["current"] ?? [])
        #expect(try await vault.files().isEmpty)
        #expect(try await vault.history().count == 3)
    }

    @Test func neverPushedVaultIsNotFoundAsTheCLISays() async throws {
        let manifest = try environment.vault("unpushed")
        let (vault, cache) = try open(manifest)
        defer { try? FileManager.default.removeItem(at: cache) }
        await #expect(throws: VaultError.vaultNotFound(vaultID: manifest.vaultID)) { try await vault.pull() }
    }

    @Test func packVaultReadsThroughTheListRoute() async throws {
        let manifest = try environment.vault("pack")
        #expect(manifest.packs)
        let log = VaultTrafficLog()
        let (vault, cache) = try open(manifest, log: log)
        defer { try? FileManager.default.removeItem(at: cache) }
        try await checkAllCommits(of: vault, branch: "current", expected: manifest.branches["current"] ?? [])
        let requests = log.events.filter { $0.kind == .request }
        #expect(requests.contains { $0.path == "bare/packs/snapshots/" })
        #expect(requests.contains { $0.path.hasPrefix("bare/packs/commits/") && $0.path.hasSuffix(".zip") })
        #expect(!requests.contains { $0.path.hasPrefix("bare/data/") }, "a pack vault has no loose objects")
        #expect(log.events.contains { $0.kind == .decrypt && $0.detail.contains("zlib") }, "envelope v2 seen")
    }

    @Test func mergeVaultBothBranchesByVaultKey() async throws {
        let manifest = try environment.vault("merge")
        let (vault, cache) = try open(manifest)
        defer { try? FileManager.default.removeItem(at: cache) }
        try await checkAllCommits(of: vault, branch: "current", expected: manifest.branches["current"] ?? [])
        try await checkAllCommits(of: vault, branch: "feature", expected: manifest.branches["feature"] ?? [])
        let names = try await vault.branches().map(\.name)
        #expect(Set(names) == ["current", "feature"])
        await #expect(throws: VaultError.branchNotFound(name: "nope")) { try await vault.pull(branch: "nope") }
    }

    @Test func readKeyAndVaultKeyReadTheSameVault() async throws {
        let manifest = try environment.vault("merge")
        let (byRead, cacheA) = try open(manifest, key: manifest.readKeyString)
        let (byVault, cacheB) = try open(manifest, key: manifest.vaultKeyString)
        defer {
            try? FileManager.default.removeItem(at: cacheA)
            try? FileManager.default.removeItem(at: cacheB)
        }
        #expect(try await byRead.pull().id == (try await byVault.pull().id))
    }

    @Test func wrongKeyOnTheServerIsVaultNotFound() async throws {
        let manifest = try environment.vault("main")
        let cache = try VaultTestSupport.scratch("wrong")
        defer { try? FileManager.default.removeItem(at: cache) }
        let wrong = try VaultKey(readKey: Data(repeating: 9, count: 32), vaultID: manifest.vaultID)
        let vault = try SGitVault(
            key: wrong, source: HTTPVaultSource(server: environment.server, policy: .allowingInsecureLoopback),
            cache: cache, log: VaultTrafficLog())
        await #expect(throws: VaultError.vaultNotFound(vaultID: manifest.vaultID)) { try await vault.pull() }
        #expect(VaultTestSupport.cachedObjects(cache).isEmpty)
    }

    @Test func localFolderOfARealCloneReadsTheSame() async throws {
        let manifest = try environment.vault("main")
        let cli = try #require(environment.cli, "SGIT_CLI is not set: eval the output of start.sh")
        let scratch = try VaultTestSupport.scratch("clone")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let clone = try await ChildProcess.run(
            cli,
            [
                "--base-url", environment.server.absoluteString, "clone", manifest.readKeyString,
                scratch.appendingPathComponent("clone").path,
            ],
            environment: ProcessInfo.processInfo.environment.merging(["HOME": scratch.path]) { $1 },
            limit: .seconds(120))
        #expect(clone.status == .exited(0), "sgit clone: \(clone.errorText.suffix(400))")
        let cache = scratch.appendingPathComponent("cache")
        let vault = try SGitVault(
            key: VaultKey(importing: manifest.readKeyString),
            source: LocalFolderVaultSource(root: scratch.appendingPathComponent("clone/.sg_vault")), cache: cache,
            log: VaultTrafficLog())
        let head = try await vault.pull()
        #expect(head.message == manifest.branches["current"]?.first?.message)
        for file in try await vault.files() {
            let bytes = try await vault.read(file.path)
            #expect(sha256(bytes) == manifest.branches["current"]?.first?.files[file.path]?.sha256)
        }
    }

    @Test func secondPullFetchesOnlyNewObjects() async throws {
        let manifest = try environment.vault("incremental")
        let cli = try #require(environment.cli, "SGIT_CLI is not set: eval the output of start.sh")
        let source = CountingSource(HTTPVaultSource(server: environment.server, policy: .allowingInsecureLoopback))
        let cache = try VaultTestSupport.scratch("incremental")
        defer { try? FileManager.default.removeItem(at: cache) }
        let vault = try SGitVault(
            key: VaultKey(importing: manifest.keyString), source: source, cache: cache, log: VaultTrafficLog())
        try await vault.pull()
        let first = Set(source.requested.filter { $0.hasPrefix("bare/data/") })
        let firstPacks = try VaultCache(root: cache).packIndexes()
        #expect(firstPacks.count == 1, "one pack per pull")

        // Push one more commit with the real CLI: one new file, one untouched folder.
        let marker = "pushed by the test at \(Date().timeIntervalSince1970)\n"
        try Data(marker.utf8).write(to: URL(fileURLWithPath: manifest.workingCopy).appendingPathComponent("new.txt"))
        for arguments in [["commit", "-m", "incremental: from test"], ["push"]] {
            let home = URL(fileURLWithPath: manifest.workingCopy).deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("home")
            let result = try await ChildProcess.run(
                cli, ["--base-url", environment.server.absoluteString, "--token", "localtest"] + arguments,
                environment: ProcessInfo.processInfo.environment.merging(["HOME": home.path]) { $1 },
                directory: manifest.workingCopy, limit: .seconds(120))
            #expect(result.status == .exited(0), "sgit \(arguments[0]): \(result.errorText.suffix(400))")
        }

        source.reset()
        let head = try await vault.pull()
        #expect(head.message == "incremental: from test")
        let second = source.requested.filter { $0.hasPrefix("bare/data/") }
        #expect(Set(second).isDisjoint(with: first), "no object fetched twice across pulls")
        #expect(second.count == 3, "the new commit, its root tree and the new blob: \(second)")
        // The second pull wrote a pack of its own holding just those objects; the first pack is untouched.
        let packs = try VaultCache(root: cache).packIndexes()
        #expect(packs.count == 2)
        for (name, index) in firstPacks { #expect(packs[name] == index) }
        let added = packs.filter { firstPacks[$0.key] == nil }.values.flatMap { $0.entries.keys }
        #expect(Set(added.map { "bare/data/" + $0 }) == Set(second))
        #expect(try await vault.read("new.txt") == Data(marker.utf8))
    }
}
