import CompanionCore
import Foundation

/// A server the app found: its address (with any mount), API base and manifest.
public struct ServerConnection: Sendable, Hashable {
    /// The address as stored in recents and shown to the person (keeps a workspace mount).
    public var address: ServerAddress
    /// Where the API lives (O-MOUNT-7).
    public var apiBase: URL
    /// What `/.well-known/omnigent.json` said; `nil` for a Databricks host that answered it 404 (its sign-in
    /// happens inside the web view, whose page then loads; see `OmnigentConnector`).
    public var manifest: Manifest?

    /// Creates a connection value.
    public init(address: ServerAddress, apiBase: URL, manifest: Manifest?) {
        self.address = address
        self.apiBase = apiBase
        self.manifest = manifest
    }

    /// How the server signs people in; without a manifest, `custom` (inside the web view).
    public var authMode: AuthMode { manifest?.authMode ?? .custom }

    /// Whether a sign-in step is needed before the API answers (header and none modes need none, O-AUTH-2).
    public var needsSignIn: Bool { authMode != .header && authMode != .none }
}
