import CompanionCore
import Foundation
import Testing

@testable import CompanionLinks

/// Managed app configuration (O-MDM-*), table-driven, every code included.
struct ManagedConfigurationTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let payload: [String: ManagedValue]
        let servers: [String]?
        let code: Int?
        var testDescription: String { name }
    }

    static func urls(_ list: [String]) -> [String: ManagedValue] {
        ["serverUrls": .array(list.map(ManagedValue.string))]
    }

    static let rows: [Row] = [
        Row(name: "O-MDM-1 absent", payload: [:], servers: [], code: nil),
        Row(name: "O-MDM-1 empty", payload: urls([]), servers: [], code: nil),
        Row(
            name: "O-MDM-3 bare host becomes https", payload: urls(["omnigent.corp.example.com"]),
            servers: ["https://omnigent.corp.example.com"], code: nil),
        Row(
            name: "O-MDM-3 path kept", payload: urls(["https://w.cloud.databricks.com/ml/omnigents"]),
            servers: ["https://w.cloud.databricks.com/ml/omnigents"], code: nil),
        Row(
            name: "O-MDM-4 duplicates collapse, first kept",
            payload: urls(["https://a.example.com/x/", "https://b.example.com", "HTTPS://A.example.com:443/x"]),
            servers: ["https://a.example.com/x", "https://b.example.com"], code: nil),
        Row(
            name: "O-MDM-11 unknown keys tolerated",
            payload: ["serverUrls": .array([.string("a.example.com")]), "other": .integer(3)],
            servers: ["https://a.example.com"], code: nil),
        Row(
            name: "O-MDM-7 ten entries", payload: urls((1...10).map { "s\($0).example.com" }),
            servers: (1...10).map { "https://s\($0).example.com" }, code: nil),
        Row(name: "O-MDM-5 blank", payload: urls([""]), servers: nil, code: 100),
        Row(name: "O-MDM-5 whitespace", payload: urls(["   "]), servers: nil, code: 100),
        Row(name: "O-MDM-5 no host", payload: urls(["https://"]), servers: nil, code: 100),
        Row(name: "O-MDM-5 invalid host", payload: urls(["https://a b.example.com"]), servers: nil, code: 100),
        Row(name: "O-MDM-5 bad port", payload: urls(["https://a.example.com:0"]), servers: nil, code: 100),
        Row(name: "O-MDM-5 user info", payload: urls(["https://u:p@a.example.com"]), servers: nil, code: 100),
        Row(name: "O-MDM-6 http", payload: urls(["http://a.example.com"]), servers: nil, code: 101),
        Row(name: "O-MDM-6 http loopback", payload: urls(["http://localhost:8000"]), servers: nil, code: 101),
        Row(name: "O-MDM-6 ftp", payload: urls(["ftp://a.example.com"]), servers: nil, code: 101),
        Row(
            name: "O-MDM-7 eleven entries", payload: urls((1...11).map { "s\($0).example.com" }), servers: nil,
            code: 102),
        Row(
            name: "O-OPEN-8 102 counts before de-duplication",
            payload: urls(Array(repeating: "a.example.com", count: 11)), servers: nil, code: 102),
        Row(
            name: "O-MDM-8 a string", payload: ["serverUrls": .string("https://a.example.com")], servers: nil,
            code: 103),
        Row(name: "O-MDM-8 [1]", payload: ["serverUrls": .array([.integer(1)])], servers: nil, code: 103),
        Row(name: "O-MDM-8 [null]", payload: ["serverUrls": .array([.null])], servers: nil, code: 103),
        Row(
            name: "O-MDM-8 a dictionary", payload: ["serverUrls": .dictionary(["a": .string("b")])], servers: nil,
            code: 103),
        Row(
            name: "O-MDM-8 mixed", payload: ["serverUrls": .array([.string("a.example.com"), .bool(true)])],
            servers: nil, code: 103),
        Row(
            name: "O-OPEN-8 103 before 102",
            payload: ["serverUrls": .array(Array(repeating: .integer(1), count: 12))], servers: nil, code: 103),
        Row(
            name: "O-OPEN-8 first entry failure reported (100 before 101)",
            payload: urls(["", "http://a.example.com"]), servers: nil, code: 100),
        Row(
            name: "O-MDM-9 one bad entry rejects the valid ones",
            payload: urls(["a.example.com", "http://b.example.com"]),
            servers: nil, code: 101),
    ]

    @Test("O-MDM-1..11: validation", arguments: rows)
    func validation(_ row: Row) {
        do {
            let configuration = try ManagedConfiguration(validating: row.payload)
            #expect(row.code == nil, "expected code \(row.code ?? 0)")
            #expect(configuration.servers.map(\.description) == row.servers)
        } catch {
            #expect(error.code == row.code)
            #expect(row.servers == nil)
            #expect(error.code < 0x7000_0000)  // O-MDM-10
            #expect(error.description.contains("code \(error.code)"))
        }
    }

    @Test("O-MDM-2, O-OPEN-7, O-MDM-11: channel choice")
    func channels() {
        let good = ManagedValue.dictionary(Self.urls(["a.example.com"]))
        let other = ManagedValue.dictionary(Self.urls(["b.example.com"]))
        let bad = ManagedValue.dictionary(Self.urls(["http://a.example.com"]))
        let empty = ManagedValue.dictionary(Self.urls([]))
        let journal = Journal(clock: ManualWallClock())

        var outcome = ManagedConfigurationResolver.resolve(declarative: good, classic: other, journal: journal)
        #expect(outcome.channel == .declarative)
        #expect(outcome.servers.map(\.host) == ["a.example.com"])

        outcome = ManagedConfigurationResolver.resolve(declarative: empty, classic: other)
        #expect(outcome.channel == .classic)
        #expect(outcome.servers.map(\.host) == ["b.example.com"])

        outcome = ManagedConfigurationResolver.resolve(declarative: .dictionary([:]), classic: other)
        #expect(outcome.channel == .classic)

        // A bad declarative payload is reported and blocks the classic one.
        outcome = ManagedConfigurationResolver.resolve(declarative: bad, classic: other, journal: journal)
        #expect(
            outcome
                == ManagedConfigurationOutcome(
                    servers: [], channel: .declarative,
                    reportedError: .notHTTPS(index: 0, reason: .insecureHTTPNotAllowed(host: "a.example.com"))))

        // A bad classic payload silently counts as empty.
        for classic in [bad, ManagedValue.string("x"), .dictionary(["serverUrls": .integer(1)]), .null] {
            outcome = ManagedConfigurationResolver.resolve(declarative: nil, classic: classic)
            #expect(outcome == ManagedConfigurationOutcome(servers: [], channel: .none, reportedError: nil))
        }
        #expect(journal.events.map(\.kind) == [.link, .link])
        #expect(journal.events.last?.fields["code"] == "101")
    }

    @Test("Payload files: plist (XML and binary) and JSON decode; unreadable ones are typed errors")
    func payloadFiles() throws {
        let plist = try PropertyListSerialization.data(
            fromPropertyList: ["serverUrls": ["https://a.example.com", "b.example.com"]], format: .xml, options: 0)
        let binary = try PropertyListSerialization.data(
            fromPropertyList: ["serverUrls": ["https://a.example.com"], "n": 3, "flag": true], format: .binary,
            options: 0)
        let json = Data(#" {"serverUrls": ["a.example.com"], "n": 1.5, "b": false, "z": null}"#.utf8)
        for data in [plist, binary, json] {
            let payload = try ManagedPayload.decode(data)
            #expect(try ManagedConfiguration(validating: payload).servers.first?.host == "a.example.com")
        }
        #expect(try ManagedPayload.decode(binary)["flag"] == .bool(true))
        #expect(try ManagedPayload.decode(binary)["n"] == .integer(3))
        #expect(try ManagedPayload.decode(json)["n"] == .real(1.5))
        #expect(try ManagedPayload.decode(json)["z"] == .null)
        #expect(throws: ManagedPayloadError.unreadable(.json)) { try ManagedPayload.decode(Data("{\"a\":".utf8)) }
        #expect(throws: ManagedPayloadError.unreadable(.propertyList)) {
            try ManagedPayload.decode(Data("<plist><dict><key>".utf8))
        }
        #expect(throws: ManagedPayloadError.notADictionary) {
            try ManagedPayload.decode(Data("[1]".utf8), format: .json)
        }
        #expect(throws: ManagedPayloadError.self) { try ManagedPayload.decode(Data()) }
    }
}
