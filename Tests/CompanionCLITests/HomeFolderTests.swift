import CompanionTestSupport
import Foundation
import Testing

/// `companion` keeps its state where a Unix user expects it, privately: `$COMPANION_HOME`, else
/// `$HOME/.companion` read from the environment; folders 0700, files 0600 (the store's SQLite files with
/// their -wal/-shm, the secret file, the signed-in account, the journal).
@Suite(.serialized)
struct HomeFolderTests {
    let program: URL
    let home: URL

    init() throws {
        program = try ProgramRun.executable("companion")
        home = FileManager.default.temporaryDirectory.appendingPathComponent("companion-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    /// The environment of a person whose home folder is `home`: no COMPANION_HOME.
    func environment() -> [String: String] {
        var environment = ["HOME": home.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        environment["LANG"] = "C.UTF-8"
        return environment
    }

    func companion(_ arguments: String..., input: String = "") async throws -> ProgramRun.Result {
        let result = try await ProgramRun.run(program, arguments, environment: environment(), input: input)
        #expect(
            result.status == 0,
            "companion \(arguments.joined(separator: " ")) exited \(result.status): \(result.errors)")
        return result
    }

    @Test("HOME=<tmp> companion writes only under <tmp>/.companion, folders 0700, files 0600")
    func stateStaysInHomeAndPrivate() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let fault = try TestServers.fault()
        let accounts = try TestServers.url("OMNIGENT_ACCOUNTS_URL")
        let user = try TestServers.value("OMNIGENT_ACCOUNTS_USER")
        let password = try String(
            contentsOfFile: try TestServers.value("OMNIGENT_ACCOUNTS_PASSWORD_FILE"), encoding: .utf8
        ).trimmingCharacters(in: .whitespacesAndNewlines)

        // The offline store (SQLite with -wal/-shm), the journal.
        _ = try await companion("get", fault.absoluteString, "/json", "--fresh")
        // The secret store and the signed-in account.
        let login = try await companion(
            "login", accounts.absoluteString, "--server", "omnigent", "--user", user, "--password-stdin",
            input: password + "\n")
        #expect(login.output.contains("Signed in"))
        _ = try await companion("whoami")
        _ = try await companion("omnigent", "sessions", "--server", try TestServers.omnigent().absoluteString, "--json")

        let top = try FileManager.default.contentsOfDirectory(atPath: home.path)
        #expect(top == [".companion"], "companion wrote outside <home>/.companion: \(top)")
        let state = home.appendingPathComponent(".companion")
        var folders = [state.path]
        var files: [String] = []
        let walker = try #require(FileManager.default.enumerator(atPath: state.path))
        while let relative = walker.nextObject() as? String {
            let path = state.appendingPathComponent(relative).path
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
            if isFolder.boolValue { folders.append(path) } else { files.append(path) }
        }
        for folder in folders {
            let found = try mode(folder)
            #expect(found == 0o700, "\(folder) is \(String(found, radix: 8)), not 700")
        }
        for file in files {
            let found = try mode(file)
            #expect(found == 0o600, "\(file) is \(String(found, radix: 8)), not 600")
        }
        let names = files.map { URL(fileURLWithPath: $0).lastPathComponent }
        #expect(names.contains("journal.jsonl"))
        #expect(names.contains("account.json"))
        #expect(names.contains { $0.hasSuffix(".sqlite") })
        #expect(files.contains { $0.contains("/secrets/") })
    }

    @Test("COMPANION_HOME wins over HOME")
    func companionHomeWins() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let custom = home.appendingPathComponent("elsewhere")
        var environment = environment()
        environment["COMPANION_HOME"] = custom.path
        let result = try await ProgramRun.run(
            program, ["link", "omnigent://127.0.0.1:8000/c/abc"], environment: environment)
        #expect(result.status == 0, "\(result.errors)")
        #expect(FileManager.default.fileExists(atPath: custom.appendingPathComponent("journal.jsonl").path))
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent(".companion").path))
        #expect(try mode(custom.path) == 0o700)
    }

    @Test("Every command answers --help with its generated usage, exit 0")
    func helpEverywhere() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let commands: [[String]] = [
            ["probe"], ["get"], ["journal"], ["login"], ["whoami"], ["sessions"], ["logout"], ["cache"],
            ["cache", "ls"], ["cache", "show"], ["cache", "clear"], ["outbox"], ["link"], ["managed-config"],
            ["managed-config", "validate"], ["omnigent"], ["omnigent", "sessions"], ["omnigent", "watch"],
            ["vault"], ["vault", "pull"], ["vault", "ls"], ["vault", "cat"], ["vault", "log"],
        ]
        for command in commands {
            let result = try await ProgramRun.run(program, command + ["--help"], environment: environment())
            #expect(result.status == 0, "\(command) --help exited \(result.status)")
            #expect(result.output.hasPrefix("usage: companion \(command.joined(separator: " "))"), "\(command)")
        }
        let wrong = try await ProgramRun.run(program, ["vault", "ls", "--nope"], environment: environment())
        #expect(wrong.status == 2)
        #expect(wrong.errors.contains("unknown option --nope"))
    }

    @Test("Without HOME or COMPANION_HOME, companion says so instead of guessing")
    func noHome() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await ProgramRun.run(program, ["journal"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.status == 1)
        #expect(result.errors.contains("Neither COMPANION_HOME nor HOME is set"))
    }

    func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return ((attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1) & 0o777
    }
}
