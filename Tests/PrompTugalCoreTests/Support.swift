import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionTestSupport
import Foundation
import Testing

@testable import PrompTugalCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The PrompTugal stand-in (`Servers/promptugal`), found through `PROMPTUGAL_URL`; a missing server fails loudly.
enum StandIn {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The stand-in's base URL.
    static func url() throws -> URL { try TestServers.url("PROMPTUGAL_URL") }

    /// Both sites on the stand-in.
    static func bases() throws -> TeamDataBases { TeamDataBases(both: try url()) }

    /// Calls a control endpoint (of the stand-in at `server`, the first fixture's by default) and returns its JSON.
    @discardableResult
    static func control(_ name: String, method: String = "POST", body: String? = nil, server: URL? = nil)
        async throws -> JSONValue
    {
        guard let target = URL(string: try (server ?? url()).absoluteString + "/_control/" + name) else {
            throw Failure(description: "bad control name \(name)")
        }
        var request = URLRequest(url: target)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        let (data, _) = try await URLSession.shared.data(for: request)
        guard let value = JSONValue(data: data) else { throw Failure(description: "control \(name) answered no JSON") }
        return value
    }

    /// The next `times` requests to `path` (`nil`: every one until `clear`) fail with `status` and the stand-in's
    /// error body (`POST /_control/fail`).
    static func fail(_ path: String, status: Int, times: Int? = 1) async throws {
        try await control("fail", body: #"{"path":"\#(path)","status":\#(status),"times":\#(count(times))}"#)
    }

    /// The next `times` requests to `path` answer 200 with a body that is not JSON.
    static func garbage(_ path: String, times: Int? = 1) async throws {
        let body = #"{\"places\": [ this is not json"#
        try await control(
            "fail", body: #"{"path":"\#(path)","status":200,"body":"\#(body)","times":\#(count(times))}"#)
    }

    /// The next `times` requests to `path` lose their connection before any byte of the reply
    /// (`POST /_control/drop-reply`).
    static func dropReply(_ path: String, times: Int? = 1) async throws {
        try await control("drop-reply", body: #"{"path":"\#(path)","times":\#(count(times))}"#)
    }

    /// Takes every fault on `path` away.
    static func clear(_ path: String) async throws {
        try await control("fail", body: #"{"path":"\#(path)","times":0}"#)
        try await control("drop-reply", body: #"{"path":"\#(path)","times":0}"#)
    }

    /// The next `times` requests to `path` answer `status` with `body` as it is (`POST /_control/fail` with a
    /// body), on the stand-in at `server`.
    static func respond(
        _ path: String, body: String, contentType: String = "application/json", status: Int = 200, times: Int? = 1,
        server: URL? = nil
    ) async throws {
        let spec: JSONValue = [
            "path": .string(path), "status": .integer(Int64(status)), "body": .string(body),
            "content_type": .string(contentType), "times": times.map { .integer(Int64($0)) } ?? .null,
        ]
        try await control("fail", body: spec.jsonString(), server: server)
    }

    /// Serves the folder of `vault` on the SG/Send read and list routes (`POST /_control/vault`), as a static
    /// host serves a vault.
    static func serveVault(_ vault: CraftedVault) async throws {
        let spec: JSONValue = ["vault_id": .string(vault.vaultID), "folder": .string(vault.folder.path)]
        let answer = try await control("vault", body: spec.jsonString())
        guard answer["ok"] == true else { throw Failure(description: "the stand-in did not take the vault: \(answer)") }
    }

    private static func count(_ times: Int?) -> String { times.map(String.init) ?? "null" }

    /// The requests the stand-in recorded under `prefix`.
    static func requests(prefix: String) async throws -> [JSONValue] {
        try await control("requests?prefix=\(prefix)", method: "GET")["items"]?.arrayValue ?? []
    }

    /// The requests under `prefix` recorded since `earlier`, an earlier `requests(prefix:)` of the same prefix: those
    /// not in it (by method, path, query and time to the millisecond). The log keeps only its last 10,000 entries,
    /// so once it is full (a stand-in that has served many runs, as in `scripts/mutate`) an earlier count is no
    /// offset into it.
    static func requests(prefix: String, after earlier: [JSONValue]) async throws -> [JSONValue] {
        func key(_ entry: JSONValue) -> [JSONValue?] { ["method", "path", "query", "at"].map { entry[$0] } }
        let seen = Set(earlier.map(key))
        return try await requests(prefix: prefix).filter { !seen.contains(key($0)) }
    }
}

/// The second fixture of the stand-in (`Servers/promptugal-b`, `PROMPTUGAL_B_URL`): the same meanings under
/// other paths in `llms.txt` and other field names.
enum StandInB {
    /// Its base URL.
    static func url() throws -> URL { try TestServers.url("PROMPTUGAL_B_URL") }

    /// Both sites on it.
    static func bases() throws -> TeamDataBases { TeamDataBases(both: try url()) }
}

/// The third fixture (`Servers/promptugal-c`, `PROMPTUGAL_C_URL`): me.json, places, the agenda and the command
/// centre in shapes neither the client nor its tests were written against.
enum StandInC {
    /// Its base URL.
    static func url() throws -> URL { try TestServers.url("PROMPTUGAL_C_URL") }

    /// Both sites on it.
    static func bases() throws -> TeamDataBases { TeamDataBases(both: try url()) }
}

/// Both fixtures, for tests that run the core on each.
enum Fixture: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// The stand-in's first fixture.
    case first
    /// Its second: other paths, other field names.
    case second

    /// The fixture's sites.
    func bases() throws -> TeamDataBases { self == .first ? try StandIn.bases() : try StandInB.bases() }

    var testDescription: String { rawValue + " fixture" }
}

/// PrompTugal's parts on a test environment: the platform's transport (loopback http allowed), stores in a
/// temporary folder, a manual clock, one journal.
struct Rig {
    let folder: TemporaryFolder
    let clock: ManualWallClock
    let environment: AppEnvironment
    let server: PrompTugalServer
    let team: TeamData

    /// The one journal.
    var journal: Journal { environment.journal }

    /// A rig on `bases` (the stand-in's first fixture by default), its stores in `folder` (a fresh one by default:
    /// pass another rig's folder to relaunch on its data).
    static func make(
        folder: TemporaryFolder? = nil, bases: TeamDataBases? = nil,
        openRouterOrigin: OpenRouterKeyMiddleware.BoundOrigin = .openRouter,
        openRouterKey: @escaping @Sendable () -> String? = { KeyTests.openRouterKey }
    ) async throws -> Rig {
        let folder = try folder ?? TemporaryFolder(prefix: "promptugal")
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_794_105_900))
        let environment = TestEnvironments.loopback(stores: .directory(folder.url), clock: clock)
        let server = try await PrompTugalServer.open(
            sites: try bases ?? StandIn.bases(), environment: environment, openRouterOrigin: openRouterOrigin,
            openRouterKey: openRouterKey)
        return Rig(
            folder: folder, clock: clock, environment: environment, server: server, team: TeamData(server: server))
    }
}

/// Known secrets, to scan every text the app shows or logs (P-SECRET-4, P-KEY-3, P-VLOG-7).
enum SecretScan {
    /// The texts in `texts` that contain any of `secrets` (in any case, and the hex keys also as base64).
    static func leaks(in texts: [String], secrets: [String]) -> [String] {
        var needles: [String] = []
        for secret in secrets {
            needles.append(secret.lowercased())
            if secret.count == 64, let bytes = hexBytes(secret) {
                let base64 = Data(bytes).base64EncodedString()
                needles.append(base64.lowercased())
                needles.append(
                    base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                        .replacingOccurrences(of: "=", with: "").lowercased())
            }
        }
        return texts.filter { text in
            let lower = text.lowercased()
            return needles.contains { lower.contains($0) }
        }
    }

    static func hexBytes(_ hex: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}

/// The reader vaults the schedule-mirror tests read, made once per test run with the real sgit CLI
/// (`SGIT_CLI`) on the real SG/Send server (`SGIT_SERVER_URL`) by `Servers/promptugal/make_agenda_vault.py`:
/// one whose `apps/agenda/picks.json` holds two picks, one whose mirror is not a schedule document.
enum MirrorVaults {
    struct Keys: Sendable {
        let good: String
        let broken: String
    }

    private static let made = Locked<Task<Keys, any Error>?>(nil)

    /// The two read keys (throwaway keys made for this run).
    static func keys() async throws -> Keys {
        let task = made.withLock { task in
            if let task { return task }
            let made = Task { try await make() }
            task = made
            return made
        }
        return try await task.value
    }

    private static func make() async throws -> Keys {
        let folder = try TemporaryFolder(prefix: "promptugal-vaults")
        let lines = try await runScript(folder: folder.url)
        guard lines.count == 2 else { throw StandIn.Failure(description: "make_agenda_vault.py printed no keys") }
        return Keys(good: lines[0], broken: lines[1])
    }

    /// Runs `make_agenda_vault.py` with the sgit CLI and server of the environment; returns its output lines.
    static func runScript(folder: URL, _ extra: [String] = []) async throws -> [String] {
        let cli = try TestServers.value("SGIT_CLI")
        let server = try TestServers.url("SGIT_SERVER_URL")
        let script = packageRoot.appendingPathComponent("Servers/promptugal/make_agenda_vault.py")
        let result = try await ChildProcess.run(
            "/usr/bin/env", ["python3", script.path, cli, server.absoluteString, folder.path] + extra,
            limit: .seconds(180))
        guard result.status == .exited(0) else {
            throw StandIn.Failure(description: "make_agenda_vault.py failed: \(result.errorText.suffix(400))")
        }
        return result.outputText.split(separator: "\n").map(String.init)
    }
}
