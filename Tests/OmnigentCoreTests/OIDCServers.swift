import CompanionTestSupport
import Foundation

/// Omnigent in OIDC mode (`OMNIGENT_OIDC_URL`) and its identity provider (`OMNIGENT_OIDC_ISSUER`), as the suites
/// that sign in through the real provider read them; a missing one fails the test loudly.
func omnigentOIDCServers() throws -> (url: URL, provider: URL) {
    (try TestServers.url("OMNIGENT_OIDC_URL"), try TestServers.url("OMNIGENT_OIDC_ISSUER"))
}

/// The identity provider's half of a sign-in, as a browser does it with `curl` (which follows nothing and returns
/// where each answer redirects): opens the authorize URL, makes `subject` a user with a verified email (Omnigent
/// names users by email), signs in as that user, and returns where the provider sends the browser back.
func signInAtProvider(
    _ authorize: URL, subject: String, provider: URL, curl: ([String]) async throws -> String
) async throws -> String {
    let toProvider = try await curl([authorize.absoluteString])
    _ = try await curl([
        "-X", "PUT", "-H", "Content-Type: application/json", "-d",
        #"{"email":"\#(subject)","email_verified":true}"#,
        provider.appendingPathComponent("users/\(subject)").absoluteString,
    ])
    return try await curl(["-X", "POST", "-d", "sub=\(subject)", toProvider])
}
