import CompanionAuth
import CompanionCore
import CompanionCrypto
import CompanionHTTP
import Foundation

/// `companion identity import|list`: client certificates (PKCS#12) kept in the secret store, assigned to servers.
enum IdentityCommands {
    /// `identity import|list`.
    static let family = CommandFamily(
        title: "Accounts",
        commands: [
            .group(
                "identity", summary: "client certificates (PKCS#12) for servers that ask for one",
                [
                    Command(
                        name: "import", summary: "import a PKCS#12 file and assign it to servers",
                        parameters: [.init(syntax: "<FILE.p12>", help: "the PKCS#12 file (.p12 or .pfx)")],
                        options: [
                            .option("server", "ADDRESS", "a server to send it to (at least one)", repeats: true),
                            .flag("passphrase-stdin", "read the file's passphrase from standard input"),
                            .httpsOnly, .json,
                        ],
                        details: """
                            Opens the file with its passphrase (asked for without echo), keeps it in the secret
                            store and assigns it to every --server: each of them gets it when it asks for a client
                            certificate, sent with the intermediate certificates the file carries. Both the current
                            PKCS#12 format (AES-256, PBKDF2) and the legacy one (RC2, 3DES) are read. A wrong
                            passphrase is a clear error. Importing the same certificate again adds servers.
                            """,
                        exitCodes: "Exit codes: 0 imported, 1 the file did not open, 2 usage error.",
                        run: importIdentity),
                    Command(
                        name: "list", summary: "the imported client certificates and their servers",
                        options: [.json], run: list),
                ])
        ])

    static func importIdentity(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let path = try arguments.positional(0, "the PKCS#12 file")
        let servers = try (arguments.options["server"] ?? []).map {
            try HTTPCommands.address($0, httpsOnly: arguments.flag("https-only"))
        }
        guard !servers.isEmpty else { throw UsageError("give at least one --server ADDRESS") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("Could not read \(path).")
        }
        let passphrase = try AuthCommands.secret("Passphrase: ", fromStdin: arguments.flag("passphrase-stdin"))
        let identity: ClientIdentity
        do {
            identity = try ClientIdentity(importing: data, passphrase: passphrase, at: Date())
        } catch {
            throw CommandFailure("\(path): \(error.description)")
        }
        let settings = try ServerNetworks.settings()
        do {
            try settings.assign(identity, to: servers)
        } catch {
            throw CommandFailure(error.description)
        }
        let day = Date.ISO8601FormatStyle().year().month().day()
        if arguments.flag("json") {
            Terminal.out(json(identity, servers: servers.map(\.serverKey)).jsonString())
        } else {
            Terminal.out(
                "Imported \(identity.subject), issued by \(identity.issuer), valid until \(day.format(identity.notAfter)), "
                    + "with \(identity.certificates.count - 1) intermediate certificate(s); id \(identity.id).")
            Terminal.out("Sent to: \(servers.map(\.serverKey).joined(separator: ", ")).")
        }
        return 0
    }

    static func list(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(0)
        let settings = try ServerNetworks.settings()
        var rows: [(ClientIdentity, [String])] = []
        do {
            let assigned = try settings.store.recordKeys(.network).compactMap { key -> ServerNetwork? in
                guard let address = try? ServerAddress(parsing: key.name, policy: .allowingInsecureLoopback) else {
                    return nil
                }
                return try? settings.network(for: address)
            }
            for identity in try settings.identities() {
                rows.append(
                    (identity, assigned.filter { $0.identityID == identity.id }.map(\.server.serverKey).sorted()))
            }
        } catch {
            throw CommandFailure(error.description)
        }
        if arguments.flag("json") {
            Terminal.out(JSONValue.array(rows.map { json($0.0, servers: $0.1) }).jsonString())
            return 0
        }
        if rows.isEmpty { Terminal.out("No client certificates.") }
        for (identity, servers) in rows {
            Terminal.out(
                "\(identity.id.prefix(16))  \(identity.subject)  → \(servers.isEmpty ? "no server" : servers.joined(separator: ", "))"
            )
        }
        return 0
    }

    private static func json(_ identity: ClientIdentity, servers: [String]) -> JSONValue {
        .object([
            "id": .string(identity.id), "subject": .string(identity.subject), "issuer": .string(identity.issuer),
            "notAfter": .string(Date.ISO8601FormatStyle().format(identity.notAfter)),
            "certificates": .integer(Int64(identity.certificates.count)),
            "servers": .array(servers.map(JSONValue.string)),
        ])
    }
}
