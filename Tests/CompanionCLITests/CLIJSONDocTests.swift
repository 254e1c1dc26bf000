import CompanionTestSupport
import Foundation
import Testing

/// `docs/cli-json.md` and the terminal client agree: every documented shape is read, checked against a command's
/// real output by some test, and the checker itself fails on a difference.
@Suite(.serialized)
struct CLIJSONDocTests {
    let program: URL
    let home: URL

    init() throws {
        program = try ProgramRun.executable("companion")
        home = FileManager.default.temporaryDirectory.appendingPathComponent("companion-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    func run(_ arguments: String...) async throws -> ProgramRun.Result {
        let environment = [
            "COMPANION_HOME": home.appendingPathComponent("state").path, "LANG": "C.UTF-8",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
        return try await ProgramRun.run(program, arguments, environment: environment)
    }

    @Test("CLI-JSON-1: every shape in docs/cli-json.md is JSON, and each is checked by a test against real output")
    func everyShapeIsChecked() throws {
        let shapes = try CLIJSONShapes.all()
        #expect(shapes.count >= 8, "\(shapes.keys.sorted())")
        // The tests that check a shape name it as the second argument of `expectDocumentedShape`.
        let tests = packageRoot.appendingPathComponent("Tests")
        var sources = ""
        let walker = try #require(FileManager.default.enumerator(atPath: tests.path))
        while let relative = walker.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            sources += try String(contentsOf: tests.appendingPathComponent(relative), encoding: .utf8)
        }
        let checked = Set(
            sources.matches(of: /expectDocumentedShape\([^,"]+,\s*"([^"]+)"/).map { String($0.1) })
        let unchecked = Set(shapes.keys).subtracting(checked).sorted()
        #expect(unchecked.isEmpty, "documented shapes no test checks: \(unchecked)")
        let undocumented = checked.subtracting(shapes.keys).sorted()
        #expect(undocumented.isEmpty, "shapes tests check that docs/cli-json.md lacks: \(undocumented)")
    }

    @Test("CLI-JSON-2: the checker reports a missing key, an undocumented key, a wrong type and a wrong date form")
    func checkerFailsOnDifferences() throws {
        let good =
            #"{"address":"a","origin":"o","reachable":true,"version":null,"manifest":null,"summary":"s","steps":[]}"#
        #expect(try CLIJSONShapes.mismatches(good, shape: "probe").isEmpty)
        let missing = #"{"address":"a","origin":"o","reachable":true,"version":null,"manifest":null,"steps":[]}"#
        #expect(try CLIJSONShapes.mismatches(missing, shape: "probe") == ["$: the documented key summary is missing"])
        let extra =
            #"{"address":"a","origin":"o","reachable":true,"version":null,"manifest":null,"summary":"s","steps":[],"x":1}"#
        #expect(try CLIJSONShapes.mismatches(extra, shape: "probe") == ["$: the key x is not documented"])
        let wrongType =
            #"{"address":"a","origin":"o","reachable":"yes","version":null,"manifest":null,"summary":"s","steps":[]}"#
        #expect(try CLIJSONShapes.mismatches(wrongType, shape: "probe").count == 1)
        let millis = #"{"id":1,"date":"2026-11-30T10:00:00.123Z","kind":"note","message":"m","fields":{}}"#
        #expect(try CLIJSONShapes.mismatches(millis, shape: "journal", lines: true).count == 1)
        let micros = #"{"id":1,"date":"2026-11-30T10:00:00.123456Z","kind":"note","message":"m","fields":{"a":"b"}}"#
        #expect(try CLIJSONShapes.mismatches(micros, shape: "journal", lines: true).isEmpty)
    }

    @Test("CLI-JSON-3: probe, journal, link and managed-config print what docs/cli-json.md documents")
    func generalCommands() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let fault = try TestServers.fault().absoluteString
        let probe = try await run("probe", fault, "--json")
        #expect(probe.status == 0, "\(probe.errors)")
        expectDocumentedShape(probe.output, "probe")
        _ = try await run("get", fault, "/json", "--fresh")
        let journal = try await run("journal", "--json")
        #expect(journal.status == 0 && !journal.output.isEmpty, "\(journal.errors)")
        expectDocumentedShape(journal.output, "journal", lines: true)

        let server = "http://127.0.0.1:8000"
        for arguments in [
            ["link", "omnigent://127.0.0.1:8000/c/abc", "--current", server, "--json"],
            [
                "link", "omnigent://127.0.0.1:8000/c/abc", "--known", server, "--current", "http://127.0.0.1:9000",
                "--json",
            ],
            ["link", "omnigent://127.0.0.1:8001/c/abc", "--current", server, "--json"],
        ] {
            let link = try await ProgramRun.run(
                program, arguments, environment: ["COMPANION_HOME": home.appendingPathComponent("state").path])
            #expect(link.status == 0, "\(arguments): \(link.errors)")
            expectDocumentedShape(link.output, "link")
        }

        let accepted = home.appendingPathComponent("accepted.json")
        try Data(#"{"serverUrls": ["https://omnigent.example.com"]}"#.utf8).write(to: accepted)
        let valid = try await run("managed-config", "validate", accepted.path, "--json")
        #expect(valid.status == 0, "\(valid.errors)")
        expectDocumentedShape(valid.output, "managed-config validate")
        let rejected = home.appendingPathComponent("rejected.json")
        try Data(#"{"serverUrls": ["", "http://omnigent.example.com"]}"#.utf8).write(to: rejected)
        let invalid = try await run("managed-config", "validate", rejected.path, "--json")
        #expect(invalid.status == 1, "\(invalid.output)")
        expectDocumentedShape(invalid.output, "managed-config validate")
    }
}
