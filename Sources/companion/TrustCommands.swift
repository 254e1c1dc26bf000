import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `companion trust`: trust one server's certificate explicitly, for that server only (its pinned key, or its CA).
enum TrustCommands {
    /// `trust`.
    static let family = CommandFamily(
        title: "Servers",
        commands: [
            Command(
                name: "trust", summary: "show a server's certificate and trust it for that server only",
                parameters: [.init(syntax: "<address>", help: "the server")],
                options: [
                    .flag("yes", "pin without asking (for scripts)"),
                    .option("ca", "FILE", "trust the CA certificate(s) in FILE (PEM or DER) for this server instead"),
                    .httpsOnly, .json,
                ],
                details: """
                    Reads the certificate the server presents (a TLS handshake; nothing is sent), shows its
                    subject, issuer, validity, names, SHA-256 fingerprint and key pin, and asks whether to pin
                    that key for this server. A pinned server must present that key from then on: a self-signed
                    or expired certificate is then accepted, any other key is refused naming both. When another
                    key is pinned already, the warning says so and confirming replaces it. Without a terminal, a
                    line "y" on standard input confirms. With --ca, the CA certificates in FILE are trusted for
                    this server (its chain is then checked against them, with names and dates). The trust is
                    kept in the secret store beside the server's credential; there is no global switch.
                    """,
                exitCodes: "Exit codes: 0 trusted (or already), 1 declined or no certificate read, 2 usage error.",
                run: trust)
        ])

    static func trust(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let address = try HTTPCommands.address(
            try arguments.positional(0, "the server address"), httpsOnly: arguments.flag("https-only"))
        guard address.scheme == "https" else {
            throw CommandFailure("\(address) is not https: there is no certificate to trust.")
        }
        let settings = try ServerNetworks.settings()
        if let file = arguments.option("ca") {
            return try importCA(file, for: address, settings, json: arguments.flag("json"))
        }
        guard let certificate = await CertificateInspection.presented(at: address.url) else {
            throw CommandFailure("No certificate could be read from \(address.origin): nothing answered TLS there.")
        }
        let current = try network(address, settings)
        let json = arguments.flag("json")
        if current.trust.pins.contains(where: { $0.pin == certificate.publicKeyPin }) {
            report(
                address, certificate, current, result: "already_pinned", json: json,
                text: "This key is already pinned for \(address.serverKey).")
            return 0
        }
        if !json {
            Terminal.out("Server:      \(address.serverKey)")
            for line in ServerNetworks.lines(certificate) { Terminal.out(line) }
        }
        for pin in current.trust.pins {
            Terminal.err(
                "Warning: the key pinned for \(address.serverKey) is sha256//\(pin.pin) (certificate SHA-256 "
                    + "\(pin.fingerprint)); the server now presents another one. Confirm only if you replaced it.")
        }
        guard arguments.flag("yes") || confirm("Trust this key for \(address.serverKey)? [y/N] ") else {
            report(address, certificate, current, result: "declined", json: json, text: "Not trusted.")
            return 1
        }
        let updated: ServerNetwork
        do {
            updated = try settings.update(address) { network in
                network.trust.pins = []
                network.trust = network.trust.pinning(certificate, at: Date())
            }
        } catch {
            throw CommandFailure(error.description)
        }
        report(
            address, certificate, updated, result: "pinned", json: json,
            text: "Pinned sha256//\(certificate.publicKeyPin) for \(address.serverKey).")
        return 0
    }

    private static func network(_ address: ServerAddress, _ settings: NetworkSettings) throws -> ServerNetwork {
        do {
            return try settings.network(for: address)
        } catch {
            throw CommandFailure(error.description)
        }
    }

    private static func importCA(_ path: String, for address: ServerAddress, _ settings: NetworkSettings, json: Bool)
        throws -> Int32
    {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("Could not read \(path).")
        }
        let certificates: [ServerCertificate]
        do {
            certificates = try ServerCertificate.certificates(in: data).map { (der) throws(CertificateError) in
                try ServerCertificate(der: der)
            }
        } catch {
            throw CommandFailure("\(path): \(error.description)")
        }
        var network = try self.network(address, settings)
        do {
            for certificate in certificates { network = try settings.trustCA(certificate.der, for: address) }
        } catch {
            throw CommandFailure(error.description)
        }
        if json {
            Terminal.out(
                JSONValue.object([
                    "server": .string(address.serverKey), "result": .string("ca_imported"),
                    "certificates": .array(certificates.map(ServerNetworks.json)),
                    "anchors": .integer(Int64(network.trust.anchors.count)),
                ]).jsonString())
        } else {
            for certificate in certificates {
                Terminal.out(
                    "Trusting CA \(certificate.subject) (SHA-256 \(certificate.fingerprint)) for \(address.serverKey).")
            }
        }
        return 0
    }

    private static func report(
        _ address: ServerAddress, _ certificate: ServerCertificate, _ network: ServerNetwork, result: String,
        json: Bool, text: String
    ) {
        guard json else { return Terminal.out(text) }
        Terminal.out(
            JSONValue.object([
                "server": .string(address.serverKey), "result": .string(result),
                "certificate": ServerNetworks.json(certificate),
                "pins": .array(network.trust.pins.map { .string("sha256//" + $0.pin) }),
            ]).jsonString())
    }

    /// Asks on the terminal, or reads one line from standard input: "y" or "yes" confirms.
    private static func confirm(_ question: String) -> Bool {
        if isatty(STDIN_FILENO) != 0 { FileHandle.standardError.write(Data(question.utf8)) }
        guard let line = readLine(strippingNewline: true) else { return false }
        return ["y", "yes"].contains(line.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
