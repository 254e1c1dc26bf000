import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

/// Checks every field the models read against the live server's own `/openapi.json`, so a server
/// upgrade that renames a field fails here rather than in a person's hands.
@Suite("Omnigent contract against the server's OpenAPI schema")
struct ContractTests {
    /// Fields the models read that 0.19.1's schema does not declare but its replies carry (seen in
    /// `sessions-list.json` and checked live by `OmnigentLiveTests`), or that a route adds outside the schema.
    static let observedBeyondSchema: Set<String> = ["viewer_unread", "viewer_last_seen", "project_id"]

    private func schema() async throws -> JSONValue {
        try await TestClients.loopback(try TestServers.omnigent()).send(Request<JSONValue>.get("/openapi.json"))
    }

    private func properties(_ name: String, in document: JSONValue) throws -> Set<String> {
        let members = try #require(
            document["components"]?["schemas"]?[name]?["properties"]?.objectValue, "schema \(name)")
        return Set(members.keys)
    }

    @Test func sessionFieldsExistInTheSchema() async throws {
        let document = try await schema()
        let declared = try properties("SessionListItem", in: document).union(
            try properties("SessionResponse", in: document))
        for field in Session.CodingKeys.allCases.map(\.rawValue) where !Self.observedBeyondSchema.contains(field) {
            #expect(declared.contains(field), "Session reads \(field), which the schema does not declare")
        }
        #expect(try properties("SessionList", in: document) == ["object", "data", "first_id", "last_id", "has_more"])
    }

    @Test func itemFieldsExistInTheSchema() async throws {
        let document = try await schema()
        let declared = try properties("ConversationItem", in: document).union(
            try properties("MessageData", in: document))
        for field in SessionItem.CodingKeys.allCases.map(\.rawValue) {
            #expect(declared.contains(field), "SessionItem reads \(field), which the schema does not declare")
        }
    }

    @Test func agentAndListFieldsExistInTheSchema() async throws {
        let document = try await schema()
        let agent = try properties("AgentObject", in: document)
        #expect(agent.isSuperset(of: ["id", "name"]))
        let list = try properties("PaginatedList", in: document)
        for field in OmnigentListPage<Agent>.CodingKeys.allCases.map(\.rawValue) { #expect(list.contains(field)) }
    }

    @Test func theRoutesTheAppCallsExist() async throws {
        let paths = try #require(try await schema()["paths"]?.objectValue)
        for path in [
            "/v1/sessions", "/v1/sessions/{session_id}", "/v1/sessions/{session_id}/items",
            "/v1/sessions/{session_id}/read-state", "/v1/agents", "/v1/me", "/v1/sessions/projects",
            "/.well-known/omnigent.json",
        ] {
            #expect(paths[path] != nil, "\(path) is not in the server's schema")
        }
    }
}
