import CompanionTestSupport
import Foundation

/// Omnigent in OIDC mode (`OMNIGENT_OIDC_URL`) and its identity provider (`OMNIGENT_OIDC_ISSUER`), as the suites
/// that sign in through the real provider read them; a missing one fails the test loudly.
func omnigentOIDCServers() throws -> (url: URL, provider: URL) {
    (try TestServers.url("OMNIGENT_OIDC_URL"), try TestServers.url("OMNIGENT_OIDC_ISSUER"))
}
