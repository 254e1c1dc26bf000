import CompanionCore
import CompanionHTTP
import Foundation
import Testing

@Suite("Server error envelopes")
struct ServerErrorEnvelopeTests {
    private func fixture(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: "json"))
        return try Data(contentsOf: url)
    }

    @Test func omnigentEnvelopeFromARealReply() throws {
        let envelope = try #require(
            ServerErrorEnvelope.parse(try fixture("error-404-session"), mediaType: "application/json"))
        #expect(envelope.code == "not_found")
        #expect(envelope.summary?.isEmpty == false)
    }

    @Test func runnerUnavailableKeepsTheServersSentence() throws {
        let envelope = try #require(
            ServerErrorEnvelope.parse(try fixture("event-error-message-no-runner"), mediaType: "application/json"))
        #expect(envelope.code == "runner_unavailable")
        #expect(envelope.message == "No runner bound for session")
    }

    @Test func fastAPIValidationListBecomesFieldProblems() throws {
        let envelope = try #require(
            ServerErrorEnvelope.parse(try fixture("error-422-validation"), mediaType: "application/json"))
        #expect(
            envelope.fieldProblems == [
                .init(
                    field: "query.limit", message: "Input should be greater than or equal to 1",
                    code: "greater_than_equal")
            ])
        #expect(envelope.summary == "query.limit: Input should be greater than or equal to 1")
    }

    @Test func certainDetailSentenceWithCode() throws {
        let body = Data(#"{"detail":"Code ungültig.","code":"invalid_code"}"#.utf8)
        let envelope = try #require(ServerErrorEnvelope.parse(body, mediaType: "application/json"))
        #expect(envelope.message == "Code ungültig.")
        #expect(envelope.code == "invalid_code")
    }

    @Test func plainErrorString() throws {
        let body = Data(#"{"error":"invalid username or password"}"#.utf8)
        #expect(
            ServerErrorEnvelope.parse(body, mediaType: "application/json")?.message == "invalid username or password")
    }

    @Test func mainworthyConflictKeepsCurrentInDetails() throws {
        let body = Data(
            #"{"error":{"code":"decision_changed","message":"This question was decided meanwhile.","current":{"id":"d_305"}}}"#
                .utf8)
        let envelope = try #require(ServerErrorEnvelope.parse(body, mediaType: "application/json"))
        #expect(envelope.code == "decision_changed")
        #expect(envelope.details?["current"]?["id"]?.stringValue == "d_305")
    }

    @Test func mainworthyFieldsMap() throws {
        let body = Data(
            #"{"error":{"code":"invalid","message":"The title is too long.","fields":{"title":"too_long"}}}"#.utf8)
        let envelope = try #require(ServerErrorEnvelope.parse(body, mediaType: "application/json"))
        #expect(envelope.fieldProblems == [.init(field: "title", message: "too_long")])
        #expect(envelope.summary == "The title is too long.")
    }

    @Test func allauthErrorsList() throws {
        let body = Data(
            #"{"status":400,"errors":[{"message":"Incorrect code.","code":"incorrect_code","param":"code"}]}"#.utf8)
        let envelope = try #require(ServerErrorEnvelope.parse(body, mediaType: "application/json"))
        #expect(envelope.code == "incorrect_code")
        #expect(envelope.fieldProblems.first?.field == "code")
    }

    @Test func htmlPageTitle() {
        let body = Data("<html><head><title> 502 Bad Gateway </title></head></html>".utf8)
        #expect(ServerErrorEnvelope.parse(body, mediaType: "text/html")?.message == "502 Bad Gateway")
    }

    @Test("unknown shapes give nil", arguments: ["", "not json", "[1,2]", #"{"x":1}"#, "<html></html>"])
    func unknownShapes(body: String) {
        #expect(ServerErrorEnvelope.parse(Data(body.utf8), mediaType: nil) == nil)
    }
}
