import CompanionHTTP
import Foundation
import Observation

/// The apps P9 measures, and what each one's first screen is.
enum FirstScreenApp: String {
    /// Certain's overview: the stored snapshot of its four sections.
    case certain
    /// Mainworthy's queue, read from the server (the core keeps nothing on disk).
    case mainworthy
    /// Mainworthy's queue screen with the network down: the failure it shows.
    case mainworthyOffline = "mainworthy-offline"
    /// Omnigent's sessions list: the stored first page.
    case omnigent
    /// PrompTugal's schedule: the picks stored on the device.
    case promptugal

    /// The server a seed reads from when none is given: the stand-in `scripts/servers` started.
    var defaultServer: URL? {
        let environment = ProcessInfo.processInfo.environment
        switch self {
        case .certain: return environment["CERTAIN_URL"].flatMap(URL.init(string:))
        case .mainworthy, .mainworthyOffline: return environment["MAINWORTHY_URL"].flatMap(URL.init(string:))
        case .omnigent: return environment["OMNIGENT_URL"].flatMap(URL.init(string:))
        case .promptugal: return URL(string: "http://127.0.0.1:9")
        }
    }

    /// Fills `folder` as the app does when it is used with its server.
    @MainActor func seed(folder: URL, server: URL) async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let peer: (file: String, query: String)?
        switch self {
        case .certain:
            try await CertainFirstScreen.seed(folder: folder, server: server)
            peer = try CertainFirstScreen.sqlite(folder: folder)
        case .mainworthy, .mainworthyOffline:
            try await MainworthyFirstScreen.seed(folder: folder, server: server)
            peer = nil
        case .omnigent:
            try await OmnigentFirstScreen.seed(folder: folder, server: server)
            peer = try OmnigentFirstScreen.sqlite(folder: folder)
        case .promptugal:
            try await PrompTugalFirstScreen.seed(folder: folder)
            peer = try PrompTugalFirstScreen.sqlite(folder: folder)
        }
        // The peer's query, for the benchmark: `sqlite3` reading the rows this screen shows from the same file.
        if let peer {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(["file": peer.file, "query": peer.query])
                .write(to: folder.appendingPathComponent("sqlite.json"), options: .atomic)
        }
    }

    /// The rows of the first screen, produced as a new process of the app produces them.
    @MainActor func read(folder: URL) async throws -> [String] {
        switch self {
        case .certain: return try await CertainFirstScreen.read(folder: folder)
        case .mainworthy: return try await MainworthyFirstScreen.read(folder: folder, network: true)
        case .mainworthyOffline: return try await MainworthyFirstScreen.read(folder: folder, network: false)
        case .omnigent: return try await OmnigentFirstScreen.read(folder: folder)
        case .promptugal: return try await PrompTugalFirstScreen.read(folder: folder)
        }
    }
}

/// The network is down: every request fails at once, as the platform's transport fails without a network.
struct NetworkDown: Transport {
    func send(_ request: HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        throw .offline(detail: "the network is down")
    }
}

/// Waits until `value` gives something while `work` runs (a screen model's appear or refresh), watching the
/// model through Observation; the first value, or `nil` when `work` ended without one.
@MainActor func firstValue<Value: Sendable>(
    _ value: @escaping @MainActor () -> Value?, while work: @escaping @MainActor () async -> Void
) async -> Value? {
    if let found = value() { return found }
    let waiter = FirstValueWaiter(value)
    return await withCheckedContinuation { continuation in
        waiter.continuation = continuation
        waiter.watch()
        Task { @MainActor in
            await work()
            waiter.finish(value())
        }
    }
}

/// The watch behind `firstValue`: resumes its continuation once, with the first value the model gives.
@MainActor final class FirstValueWaiter<Value: Sendable> {
    let value: @MainActor () -> Value?
    var continuation: CheckedContinuation<Value?, Never>?

    init(_ value: @escaping @MainActor () -> Value?) { self.value = value }

    /// Watches what `value` reads; each change is looked at on the main actor once it has landed.
    func watch() {
        withObservationTracking {
            _ = MainActor.assumeIsolated { self.value() != nil }
        } onChange: {
            Task { @MainActor in self.changed() }
        }
    }

    private func changed() {
        guard continuation != nil else { return }
        if let found = value() { finish(found) } else { watch() }
    }

    func finish(_ result: Value?) {
        continuation?.resume(returning: result)
        continuation = nil
    }
}

/// What a seed leaves for the cold read besides the store: what the app keeps in its settings (the address,
/// the account), written once.
struct SeedNote: Codable {
    var values: [String: String]

    static func url(in folder: URL) -> URL { folder.appendingPathComponent("first-screen.json") }

    func write(to folder: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(self).write(to: Self.url(in: folder), options: .atomic)
    }

    static func read(from folder: URL) throws -> SeedNote {
        try JSONDecoder().decode(SeedNote.self, from: Data(contentsOf: url(in: folder)))
    }

    func value(_ name: String) throws -> String {
        guard let value = values[name] else { throw FirstScreenError("the seed note has no \(name)") }
        return value
    }
}

/// A failure of the harness, with its sentence.
struct FirstScreenError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
