import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

/// A server's network settings in the client's secret store (trust, client identity, internal address, proxy
/// credentials; `NetworkSettings`). Every command's client takes its transport from the one environment
/// (`CommandEnvironment`), which applies them.
enum ServerNetworks {
    /// The settings in the client's secret store.
    static func settings() throws(CommandFailure) -> NetworkSettings {
        NetworkSettings(store: try AuthCommands.store())
    }

    /// The error a server's network answered with, when one GET of its root says so (an untrusted certificate, a
    /// client certificate it wants, a proxy's sign-in), else `nil`: why a sign-in found no server it knows.
    static func networkProblem(client: Client) async -> HTTPError? {
        do {
            _ = try await client.reply(Request<Data>.raw(.get, "/"))
            return nil
        } catch {
            switch error {
            case .untrustedCertificate, .clientCertificateRequired, .proxySignInRequired, .tls: return error
            default: return nil
            }
        }
    }

    /// `login --proxy-user NAME` and `--internal URL`: the proxy's password (asked for, or the first line of
    /// standard input) and the internal address, kept in the server's settings before the sign-in starts.
    static func configure(_ address: ServerAddress, _ arguments: Arguments, fromStdin: Bool) throws {
        let user = arguments.option("proxy-user")
        let internalText = arguments.option("internal")
        guard user != nil || internalText != nil else { return }
        var credential: ProxyCredential?
        if let user {
            guard !user.isEmpty, !user.contains(":") else { throw UsageError("--proxy-user takes a name without ':'") }
            let password = try AuthCommands.secret("Proxy password: ", fromStdin: fromStdin)
            credential = ProxyCredential(user: user, password: password)
            for secret in credential?.secretValues ?? [] { Terminal.journal.register(secret: secret) }
        }
        let internalAddress = try internalText.map {
            try HTTPCommands.address($0, httpsOnly: arguments.flag("https-only"))
        }
        do {
            try settings().update(address) { network in
                if let credential { network.proxyCredential = credential }
                if let internalAddress { network.internalAddress = internalAddress }
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    /// A certificate as JSON (docs/cli-json.md).
    static func json(_ certificate: ServerCertificate) -> JSONValue {
        .object([
            "subject": .string(certificate.subject), "issuer": .string(certificate.issuer),
            "notBefore": .string(Date.ISO8601FormatStyle().format(certificate.notBefore)),
            "notAfter": .string(Date.ISO8601FormatStyle().format(certificate.notAfter)),
            "fingerprint": .string(certificate.fingerprint), "publicKeyPin": .string(certificate.publicKeyPin),
            "alternativeNames": .array(certificate.alternativeNames.map(JSONValue.string)),
        ])
    }

    /// A certificate as the lines a person reads.
    static func lines(_ certificate: ServerCertificate) -> [String] {
        let day = Date.ISO8601FormatStyle().year().month().day()
        var lines = [
            "Certificate: \(certificate.subject)",
            "Issued by:   \(certificate.issuer)\(certificate.isSelfIssued ? " (self-signed)" : "")",
            "Valid:       \(day.format(certificate.notBefore)) to \(day.format(certificate.notAfter))",
        ]
        if !certificate.alternativeNames.isEmpty {
            lines.append("Names:       \(certificate.alternativeNames.joined(separator: ", "))")
        }
        lines.append("SHA-256:     \(certificate.fingerprint)")
        lines.append("Key pin:     sha256//\(certificate.publicKeyPin)")
        return lines
    }
}
