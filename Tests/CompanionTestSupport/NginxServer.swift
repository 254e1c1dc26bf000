import Foundation

/// The nginx test server `scripts/servers start nginx` runs (Servers/nginx): its TLS servers and the test
/// material of its private CA, found by the variables it exports. A missing one fails the test loudly.
public enum NginxServer {
    /// A TLS server of the nginx config.
    public enum Site: String, Sendable, CaseIterable {
        /// In front of the fault server, private-CA certificate (`/basic/`, `/sso/`, `/sso-page/` locations).
        case fault = "NGINX_FAULT_URL"
        /// In front of Omnigent (header mode); a client certificate is required.
        case omnigent = "NGINX_OMNIGENT_URL"
        /// In front of Omnigent (accounts mode); a client certificate is required.
        case accounts = "NGINX_ACCOUNTS_URL"
        /// In front of Omnigent (accounts mode) with HTTP Basic at the proxy.
        case basic = "NGINX_BASIC_URL"
        /// In front of the fault server; a client certificate is asked for but optional.
        case optional = "NGINX_OPTIONAL_URL"
        /// In front of the fault server, a self-signed certificate.
        case selfSigned = "NGINX_SELFSIGNED_URL"
        /// A self-signed server whose key `rotateKey()` changes.
        case rotating = "NGINX_ROTATING_URL"
        /// The forward-auth proxy's sign-in page origin.
        case login = "NGINX_LOGIN_URL"
        /// In front of the WebSocket fault server: a client certificate required, and HTTP Basic at the proxy.
        case webSocket = "NGINX_WEBSOCKET_URL"
    }

    /// The base URL of `site`.
    public static func url(_ site: Site) throws -> URL { try TestServers.url(site.rawValue) }

    /// The contents of the file exported in `variable`.
    public static func file(_ variable: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: try TestServers.value(variable)))
    }

    /// A file of the private PKI folder (`<state>/pki/<name>`, made by Servers/nginx/make-pki.sh).
    public static func pkiFile(_ name: String) throws -> Data {
        let state = URL(fileURLWithPath: try TestServers.value("NGINX_STATE"), isDirectory: true)
        return try Data(contentsOf: state.appendingPathComponent("pki").appendingPathComponent(name))
    }

    /// The private root CA, PEM.
    public static func rootPEM() throws -> Data { try file("NGINX_ROOT_PEM") }
    /// The private root CA, DER.
    public static func rootDER() throws -> Data { try file("NGINX_ROOT_DER") }
    /// The client identity signed by the intermediate, with its chain (OpenSSL 3's default PKCS#12).
    public static func clientP12() throws -> Data { try file("NGINX_CLIENT_P12") }
    /// The same identity in the legacy PKCS#12 format (RC2-40).
    public static func clientLegacyP12() throws -> Data { try file("NGINX_CLIENT_LEGACY_P12") }
    /// The same leaf without its intermediate.
    public static func clientLeafP12() throws -> Data { try file("NGINX_CLIENT_LEAF_P12") }
    /// A client signed by a CA the proxy does not trust.
    public static func strangerP12() throws -> Data { try file("NGINX_STRANGER_P12") }
    /// The passphrase of every .p12 above.
    public static func p12Passphrase() throws -> String {
        String(decoding: try file("NGINX_P12_PASSPHRASE_FILE"), as: UTF8.self)
    }
    /// The Basic user at the proxy.
    public static func basicUser() throws -> String { try TestServers.value("NGINX_BASIC_USER") }
    /// The Basic password at the proxy.
    public static func basicPassword() throws -> String {
        String(decoding: try file("NGINX_BASIC_PASSWORD_FILE"), as: UTF8.self)
    }
    /// The cookie value the forward-auth check lets through (`sso=<value>`).
    public static func ssoCookie() throws -> String {
        String(decoding: try file("NGINX_SSO_COOKIE_FILE"), as: UTF8.self)
    }

    /// Changes the rotating server's key (Servers/nginx/rotate-key.sh: swap, SIGHUP, a bounded wait until it is
    /// served) and returns the SHA-256 fingerprint of the certificate it now serves.
    public static func rotateKey() async throws -> String {
        let state = try TestServers.value("NGINX_STATE")
        let script = packageRoot.appendingPathComponent("Servers/nginx/rotate-key.sh").path
        let result = try await ChildProcess.run(
            "/bin/bash", [script, state], environment: ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin"], input: Data(),
            limit: .seconds(30))
        guard result.status == .exited(0) else {
            throw TestServers.Missing(variable: "a rotated key (rotate-key.sh said: \(result.errorText))")
        }
        return result.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
