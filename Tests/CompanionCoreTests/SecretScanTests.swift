import CompanionTestSupport
import Foundation
import Testing

/// `scripts/secret-scan`, which ends every `scripts/test` run, shown able to fail: planted secrets in a made-up
/// state folder are found (by file, never by value), and a clean tree passes.
@Suite("Secret scan of a test run")
struct SecretScanTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/secret-scan")

    /// A state folder with a secrets list and a server log, and a home folder with correct modes.
    struct Tree {
        let root: URL
        var state: URL { root.appendingPathComponent("state") }
        var home: URL { root.appendingPathComponent("home") }

        init() throws {
            root = try TemporaryFolder.make(prefix: "secret-scan")
            let fm = FileManager.default
            try fm.createDirectory(
                at: state.appendingPathComponent("omnigent"), withIntermediateDirectories: true)
            try fm.createDirectory(
                at: home.appendingPathComponent("store"), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: home.path)
            try write("planted-Secret-4711\nanother-secret-value\n", to: state.appendingPathComponent("secrets.txt"))
            try write("GET /health 200\n", to: state.appendingPathComponent("omnigent/server.out"))
            try write("{}", to: home.appendingPathComponent("store/state.json"), mode: 0o600)
        }

        func write(_ text: String, to url: URL, mode: Int = 0o644) throws {
            try Data(text.utf8).write(to: url)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        }

        /// Runs the script on this tree; the exit status and everything it printed.
        func scan() throws -> (status: Int32, output: String) {
            var environment = ProcessInfo.processInfo.environment
            environment["CERTAIN_URL"] = nil
            let result = try ChildProcess.runBlocking(
                SecretScanTests.script.path, ["--state", state.path, "--home", home.path], environment: environment,
                errors: .output)
            return (result.status.code, result.outputText)
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    @Test("a clean run passes")
    func cleanTreePasses() throws {
        let tree = try Tree()
        defer { tree.remove() }
        let result = try tree.scan()
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("0 hits, 0 permission problems"))
    }

    @Test("a secret planted in a server log fails the scan, and the report never prints it")
    func plantedSecretFails() throws {
        let tree = try Tree()
        defer { tree.remove() }
        try tree.write(
            "login ok password=planted-Secret-4711\n", to: tree.state.appendingPathComponent("omnigent/server.out"))
        let result = try tree.scan()
        #expect(result.status == 1)
        #expect(result.output.contains("omnigent/server.out"))
        #expect(result.output.contains("secrets.txt line 1"))
        #expect(!result.output.contains("planted-Secret-4711"))
    }

    @Test("percent-encoded and JSON-escaped forms are found too, in the home folder as well")
    func encodedFormsFail() throws {
        let tree = try Tree()
        defer { tree.remove() }
        try tree.write("a/b\"c-secret", to: tree.state.appendingPathComponent("secrets.txt"))
        try tree.write(
            "{\"token\":\"a/b\\\"c-secret\"}", to: tree.home.appendingPathComponent("store/state.json"), mode: 0o600)
        try tree.write("q=a%2Fb%22c-secret", to: tree.state.appendingPathComponent("omnigent/server.out"))
        let result = try tree.scan()
        #expect(result.status == 1)
        #expect(result.output.contains("store/state.json"))
        #expect(result.output.contains("omnigent/server.out"))
    }

    @Test("a minted token is caught by its shape even when no list names it")
    func tokenShapeFails() throws {
        let tree = try Tree()
        defer { tree.remove() }
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJlLW9mLWEtdGVzdC10b2tlbg"
        try tree.write("Authorization: Bearer \(jwt)\n", to: tree.state.appendingPathComponent("test-output.log"))
        let result = try tree.scan()
        #expect(result.status == 1)
        #expect(result.output.contains("a JSON Web Token"))
        #expect(!result.output.contains(jwt))
    }

    @Test("a state file readable by others, or a folder open to them, fails the scan")
    func loosePermissionsFail() throws {
        let tree = try Tree()
        defer { tree.remove() }
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o644], ofItemAtPath: tree.home.appendingPathComponent("store/state.json").path)
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o755], ofItemAtPath: tree.home.appendingPathComponent("store").path)
        let result = try tree.scan()
        #expect(result.status == 1)
        #expect(result.output.contains("file mode 0644, expected 0600"))
        #expect(result.output.contains("folder mode 0755, expected 0700"))
    }
}
