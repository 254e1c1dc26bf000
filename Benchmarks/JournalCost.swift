import CompanionCore
import CompanionHTTP
import Foundation

/// A breakdown of P1: what recording one exchange in the journal costs, per step.
enum JournalCost {
    static func run() throws {
        let journal = Journal(capacity: 4_096)
        let redactor = journal.redactor
        guard let url = URL(string: "http://127.0.0.1:45545/small") else { return }
        let headers: HTTPHeaders = ["Accept": "application/json", "User-Agent": "CompanionKit/0.1"]
        let responseHeaders: HTTPHeaders = [
            "Content-Length": "2", "Content-Type": "application/json", "Date": "Sun, 29 Nov 2026 13:02:24 GMT",
            "Server": "FaultServer/1.0 Python/3.11.7",
        ]
        let count = 10_000
        func measure(_ name: String, _ body: () -> Void) {
            let start = ContinuousClock.now
            for _ in 0..<count { body() }
            let micros = (ContinuousClock.now - start).seconds / Double(count) * 1e6
            print(Report.pad(name, 40) + String(format: "%.2f µs", micros))
        }
        print("\nJournal cost per call (\(count) calls each)")
        measure("redact(url:)") { _ = redactor.redact(url: url) }
        measure("isSecretHeader") { _ = redactor.isSecretHeader("User-Agent") }
        measure("scrubShapes(header line)") {
            _ = redactor.scrubShapes("Accept: application/json; User-Agent: CompanionKit/0.1")
        }
        measure("journal.scrub(header line)") {
            _ = journal.scrub("Accept: application/json; User-Agent: CompanionKit/0.1")
        }
        measure("record(request)") {
            journal.record(
                .request, "GET http://127.0.0.1:45545/small",
                fields: ["bytesOut": "0", "headers": "Accept: application/json; User-Agent: CompanionKit/0.1"])
        }
        measure("record(response)") {
            journal.record(
                .response, "GET http://127.0.0.1:45545/small",
                fields: [
                    "status": "200", "headMs": "1", "bytesIn": "2", "totalMs": "1",
                    "headers":
                        "Content-Length: 2; Content-Type: application/json; Date: Sun, 29 Nov 2026 13:02:24 GMT; Server: FaultServer/1.0 Python/3.11.7",
                ])
        }
        _ = headers
        _ = responseHeaders
    }
}
