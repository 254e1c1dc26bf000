import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// A write whose reply is lost: the fault server's `/lost-reply` reads the whole POST, commits it, and closes the
/// connection without sending a byte, on a connection that already carried a GET (Servers/README.md). That a
/// transport never resends the write by itself (FoundationNetworking's URLSession did, on a reused connection, with
/// the headers only) is the transport contract's T-3 (`TransportConformanceTests`); here, over both transports, the
/// only resend is the command's own rule, with the same key.
@Suite("A lost reply to a write, over every transport")
struct LostReplyTests {
    struct Log: Decodable {
        struct Item: Decodable {
            var method: String
            var idempotencyKey: String?
            var committed: Bool
            var connectionRequest: Int?
            enum CodingKeys: String, CodingKey {
                case method, committed
                case idempotencyKey = "idempotency_key"
                case connectionRequest = "connection_request"
            }
        }
        var items: [Item]
    }

    /// The requests the route saw that carried `key`.
    static func writes(carrying key: String) async throws -> [Log.Item] {
        let log = try await TestClients.fault().send(Request<Log>.get("/_lost_reply_log"))
        return log.items.filter { $0.method != "GET" && $0.idempotencyKey == key }
    }

    static func client(_ kind: TransportKind, sleeper: any Sleeper = RecordingSleeper()) throws -> Client {
        TestClients.loopback(
            try TestServers.fault(), retry: .never, timeout: .seconds(10), sleeper: sleeper, transport: kind.make())
    }

    @Test(
        "the command's own rule is the only resend: the same key after 1, 2 and 4 s", arguments: TransportKind.available
    )
    func onlyTheCommandsRuleResends(_ kind: TransportKind) async throws {
        let sleeper = RecordingSleeper()
        let client = try Self.client(kind, sleeper: sleeper)
        _ = try await client.send(Request<JSONValue>.get("/lost-reply"))
        let command = WriteCommand(
            Request<JSONValue>.post("/lost-reply", body: ["answer": "yes"]),
            resend: .lostReply(resends: 3, first: .seconds(1), cap: .seconds(4)), random: SystemRandomSource())
        await #expect(throws: HTTPError.self) { _ = try await client.send(command.request) }
        let writes = try await Self.writes(carrying: command.key)
        #expect(writes.count == 4)
        #expect(writes.allSatisfy { $0.committed })
        #expect(sleeper.delays == [.seconds(1), .seconds(2), .seconds(4)])
    }
}
