import CompanionCore
import CompanionHTTP
import Foundation
import MainworthyCore

/// What the terminal keeps for one signed-in Mainworthy account between commands, in
/// `<home>/mainworthy/<server>-<user>.json` (the folder 0700, the file 0600; never a secret in it):
/// - the proposals whose every edit `question` printed, each with a mark of its edits, so `answer` can tell a
///   proposal whose edits were shown from one whose edits never were (M-QUEUE-7, M-WEB-4);
/// - the writes whose reply was lost, each with its idempotency key and the exact request, so `retry` (or the
///   command again with `--retry`) sends the same command with the same key, at most one per command (M-NET-2,
///   M-DRAFT-5, M-PLAN-3).
struct MainworthyAccountState: Codable, Equatable {
    /// A write whose reply was lost: what it was, its key, and the request as it was sent.
    struct PendingWrite: Codable, Equatable {
        /// The command that sent it (`answer`, `undo`, `result`, `plan`, `edit`, `new`).
        var command: String
        /// The command line as the person typed it after `companion mainworthy` (options left out).
        var summary: String
        /// The idempotency key it carried.
        var key: String
        /// The request's method (`POST`).
        var method: String
        /// The request's path.
        var path: String
        /// The body as sent, byte for byte (JSON text).
        var body: String?
        /// When it was sent.
        var sentAt: Date

        enum CodingKeys: String, CodingKey {
            case command, summary, key, method, path, body
            case sentAt = "sent_at"
        }
    }

    /// Question id → the mark of the edits `question` printed for it (`EditMark.of`).
    var shownProposals: [String: String] = [:]
    /// The writes whose reply was lost, oldest first, at most one per command.
    var pending: [PendingWrite] = []

    enum CodingKeys: String, CodingKey {
        case pending
        case shownProposals = "shown_proposals"
    }

    /// The state file of `account`: `<home>/mainworthy/<server key>-<user id>.json`, every character that is not
    /// a letter, a digit, `.` or `-` written `_`.
    static func file(for account: AccountKey) throws(CommandFailure) -> URL {
        let name = "\(account.serverKey)-\(account.userID)".map { character -> Character in
            character.isASCII && (character.isLetter || character.isNumber || character == "." || character == "-")
                ? character : "_"
        }
        return try Terminal.stateFolder("mainworthy").appendingPathComponent(String(name) + ".json")
    }

    /// The account's state; empty when none was kept (or the file cannot be read as one).
    static func load(_ account: AccountKey) throws(CommandFailure) -> MainworthyAccountState {
        let file = try file(for: account)
        guard let data = try? Data(contentsOf: file) else { return MainworthyAccountState() }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode(MainworthyAccountState.self, from: data)) ?? MainworthyAccountState()
    }

    /// Writes the account's state, atomically, mode 0600.
    func save(_ account: AccountKey) throws(CommandFailure) {
        let file = try Self.file(for: account)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        do {
            try Terminal.writePrivateFile(try encoder.encode(self), to: file)
        } catch {
            throw CommandFailure("Could not write \(file.path) (\(error.localizedDescription)); check its permissions.")
        }
    }

    /// Changes the account's state on disk.
    static func update(_ account: AccountKey, _ change: (inout MainworthyAccountState) -> Void) throws(CommandFailure) {
        var state = try load(account)
        change(&state)
        try state.save(account)
    }
}

/// A mark of a proposal's edits as the terminal printed them: the same edits give the same mark, a changed
/// proposal another (FNV-1a over the printed lines, hexadecimal).
enum EditMark {
    /// The mark of `edits`' printed lines.
    static func of(_ edits: [ProposalEdit]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for line in edits.flatMap({ [$0.op] + ($0.shown?.lines ?? []) + ["\u{0}"] }) {
            for byte in line.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
        }
        return String(hash, radix: 16)
    }
}
