import CompanionCore
import Foundation
import Testing

@Suite struct JournalTests {
    private let jwt =
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"

    @Test func capacityDropsOldest() {
        let journal = Journal(capacity: 3, clock: ManualWallClock())
        for index in 1...5 { journal.record(.note, "event \(index)") }
        #expect(journal.events.map(\.message) == ["event 3", "event 4", "event 5"])
        #expect(journal.events.map(\.id) == [3, 4, 5])
        #expect(journal.newestFirst(limit: 2).map(\.id) == [5, 4])
        journal.record(.note, "event 6")
        #expect(journal.events.map(\.id) == [4, 5, 6])
    }

    @Test func capacityIsAtLeastOne() {
        let journal = Journal(capacity: 0, clock: ManualWallClock())
        journal.record(.note, "a")
        journal.record(.note, "b")
        #expect(journal.capacity == 1)
        #expect(journal.events.map(\.message) == ["b"])
    }

    @Test func idsIncreaseAcrossClear() {
        let journal = Journal(capacity: 10, clock: ManualWallClock())
        let first = journal.record(.request, "one")
        let second = journal.record(.response, "two")
        journal.clear()
        #expect(journal.events.isEmpty)
        let third = journal.record(.error, "three")
        #expect(first.id == 1)
        #expect(second.id == 2)
        #expect(third.id == 3)
        #expect(journal.events.map(\.id) == [3])
    }

    @Test func datesComeFromTheClock() {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_000))
        let journal = Journal(clock: clock)
        journal.record(.note, "a")
        clock.advance(by: 2.5)
        journal.record(.note, "b")
        #expect(
            journal.events.map(\.date) == [Date(timeIntervalSince1970: 1_000), Date(timeIntervalSince1970: 1_002.5)])
    }

    @Test func newestFirstFiltersByKind() {
        let journal = Journal(clock: ManualWallClock())
        journal.record(.request, "r1")
        journal.record(.error, "e1")
        journal.record(.request, "r2")
        #expect(journal.newestFirst(kind: .request).map(\.message) == ["r2", "r1"])
        #expect(journal.newestFirst(limit: 1, kind: .error).map(\.message) == ["e1"])
    }

    @Test func redactsSecretFieldsByName() {
        let journal = Journal(clock: ManualWallClock())
        let event = journal.record(
            .request, "POST /api/auth/login",
            fields: [
                "Authorization": "ctk_plainvalue123",
                "Cookie": "certain_session=abc123",
                "X-Certain-Token": "ctk_0123456789",
                "password": "hunter22",
                "refresh_token": "rt_abcdef",
                "status": "200",
                "Idempotency-Key": "3F2504E0-4F89-11D3-9A0C-0305E82C3301",
            ])
        #expect(event.fields["Authorization"] == Redactor.mask)
        #expect(event.fields["Cookie"] == Redactor.mask)
        #expect(event.fields["X-Certain-Token"] == Redactor.mask)
        #expect(event.fields["password"] == Redactor.mask)
        #expect(event.fields["refresh_token"] == Redactor.mask)
        #expect(event.fields["status"] == "200")
        #expect(event.fields["Idempotency-Key"] == "3F2504E0-4F89-11D3-9A0C-0305E82C3301")
    }

    @Test func redactsHeadersURLsAndJSONPassedThroughTheRedactor() throws {
        let journal = Journal(clock: ManualWallClock())
        let url = try #require(URL(string: "https://host.example/v1/items?limit=5&api_key=sk_live_123&token=abc"))
        let headers = journal.redactor.redact(headers: ["Authorization": "Token abc", "Accept": "application/json"])
        let body = journal.redactor.redact(json: Data(#"{"password":"hunter22","user":"ann"}"#.utf8))
        let event = journal.record(
            .request, "GET \(journal.redactor.redact(url: url))",
            fields: headers.merging(["body": body ?? ""]) { $1 })
        #expect(!event.message.contains("sk_live_123"))
        #expect(!event.message.contains("=abc"))
        #expect(event.message.contains("limit=5"))
        #expect(event.fields["Authorization"] == Redactor.mask)
        #expect(event.fields["Accept"] == "application/json")
        #expect(event.fields["body"] == #"{"password":"<redacted>","user":"ann"}"#)
    }

    @Test func redactsSecretsThatSlippedIntoFreeText() {
        let journal = Journal(clock: ManualWallClock())
        let message =
            "GET https://host.example/v1/items?access_token=abc123&page=2 failed: "
            + #"{"detail":"bad","refresh_token":"rt_999","code":"expired"} "#
            + "Authorization: Bearer sk-abcdef jwt=\(jwt)"
        let event = journal.record(.error, message, fields: ["detail": "echo password=hunter22&user=ann"])
        for secret in ["abc123", "rt_999", "sk-abcdef", jwt, "hunter22"] {
            #expect(!event.message.contains(secret))
            #expect(!event.fields.values.contains { $0.contains(secret) })
        }
        #expect(event.message.contains("page=2"))
        #expect(event.message.contains(#""code":"expired""#))
        #expect(event.fields["detail"] == "echo password=<redacted>&user=ann")
    }

    @Test func redactsRegisteredSecretsInMessageAndFields() {
        let journal = Journal(clock: ManualWallClock())
        journal.register(secret: "vault-passphrase-42")
        journal.register(secret: "short")
        let event = journal.record(
            .vault, "decrypt with vault-passphrase-42 done", fields: ["note": "key vault-passphrase-42!"])
        #expect(event.message == "decrypt with <redacted> done")
        #expect(event.fields["note"] == "key <redacted>!")
        // Secrets under 6 characters are ignored, so ordinary words stay readable.
        #expect(journal.record(.note, "a short note").message == "a short note")
        journal.forget(secret: "vault-passphrase-42")
        #expect(journal.record(.note, "vault-passphrase-42").message == "vault-passphrase-42")
    }

    @Test func exportImportRoundTripSkipsGarbage() throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_764_400_000.25))
        let journal = Journal(clock: clock)
        journal.record(.request, "GET https://host.example/v1/sessions", fields: ["status": "200"])
        clock.advance(by: 0.5)
        journal.record(.sync, "outbox replayed", fields: [:])
        var data = journal.exportJSONLines()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].contains(#""date":"2025-11-29T07:06:40.250Z""#))
        data.append(Data("this is not json\n{\"id\":1}\n\n".utf8))
        let imported = Journal.importJSONLines(data)
        #expect(imported.events == journal.events)
        #expect(imported.skipped == 2)
    }

    @Test func importReadsSecondPrecisionExports() {
        let line = #"{"date":"2025-11-29T07:06:40Z","fields":{},"id":7,"kind":"note","message":"old"}"#
        let imported = Journal.importJSONLines(Data(line.utf8))
        #expect(imported.skipped == 0)
        #expect(imported.events.first?.date == Date(timeIntervalSince1970: 1_764_400_000))
    }

    @Test func concurrentAppendsKeepExactCount() async {
        let journal = Journal(capacity: 10_000, clock: ManualWallClock())
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<500 { journal.record(.note, "task \(task) event \(index)") }
                }
            }
        }
        let events = journal.events
        #expect(events.count == 4_000)
        #expect(events.map(\.id) == Array(1...4_000))
        #expect(Set(events.map(\.message)).count == 4_000)
    }

    // MARK: Deferred events (`record(_:deferred:)`): described and redacted when read, never skipped

    @Test("a deferred event is redacted by the same rules as record when it is read")
    func deferredEventsAreRedactedOnRead() {
        let journal = Journal(clock: ManualWallClock(Date(timeIntervalSince1970: 5)))
        journal.register(secret: "registered-secret-99")
        journal.record(.request) { _ in
            (
                "GET https://host/x?token=abc123&page=2 with registered-secret-99",
                [
                    "Authorization": "Bearer live-token-1", "headers": "Authorization: Bearer live-token-2",
                    "status": "200",
                ]
            )
        }
        let event = journal.events[0]
        #expect(event.message == "GET https://host/x?token=<redacted>&page=2 with <redacted>")
        #expect(event.fields["Authorization"] == Redactor.mask)
        #expect(event.fields["headers"] == "Authorization: Bearer <redacted>")
        #expect(event.fields["status"] == "200")
        #expect(event.date == Date(timeIntervalSince1970: 5))
        // Every way out of the journal redacts: the export holds none of the secrets either.
        let exported = String(decoding: journal.exportJSONLines(), as: UTF8.self)
        for secret in ["abc123", "registered-secret-99", "live-token-1", "live-token-2"] {
            #expect(!exported.contains(secret))
        }
    }

    @Test("a secret forgotten before the journal is read stays masked in what was recorded while it was registered")
    func forgettingASecretRedactsWaitingEventsFirst() {
        let journal = Journal(clock: ManualWallClock())
        journal.register(secret: "vault-passphrase-42")
        journal.record(.vault) { _ in ("opened with vault-passphrase-42", ["detail": "vault-passphrase-42"]) }
        journal.forget(secret: "vault-passphrase-42")
        #expect(journal.events[0].message == "opened with <redacted>")
        #expect(journal.events[0].fields["detail"] == Redactor.mask)
        // After it was forgotten, new text is no longer masked (as with `record`).
        journal.record(.vault) { _ in ("later vault-passphrase-42", [:]) }
        #expect(journal.events[1].message == "later vault-passphrase-42")
    }

    @Test("deferred and immediate events share one order, one numbering and one capacity")
    func deferredEventsKeepOrderAndCapacity() {
        let journal = Journal(capacity: 3, clock: ManualWallClock())
        journal.record(.note, "one")
        journal.record(.note) { _ in ("two", [:]) }
        journal.record(.note, "three")
        journal.record(.note) { _ in ("four", [:]) }
        #expect(journal.events.map(\.message) == ["two", "three", "four"])
        #expect(journal.events.map(\.id) == [2, 3, 4])
        #expect(journal.newestFirst(limit: 1).map(\.message) == ["four"])
    }
}
