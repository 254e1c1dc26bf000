import CompanionApp
import CompanionCore
import CompanionHTTP
import Foundation

/// Finds the Omnigent mount on a Databricks workspace and the API base of any server (O-MOUNT-1…6).
public enum WorkspaceDiscovery {
    /// The mount path Omnigent is served under on a workspace (O-OPEN-1: discovery writes `/omnigent`).
    public static let mount = "/omnigent"
    /// The older mount path, kept as given when a person or an admin names it.
    public static let legacyMount = "/ml/omnigents"
    /// The API base path on a workspace.
    public static let workspaceAPIBase = "/api/2.0/omnigent"

    /// Whether the probe may run (O-MOUNT-1): https, a bare root path, and not a Databricks App host.
    public static func shouldProbe(_ url: URL) -> Bool { shouldProbe(url, requiringHTTPS: true) }

    static func shouldProbe(_ url: URL, requiringHTTPS: Bool) -> Bool {
        guard !requiringHTTPS || url.scheme?.lowercased() == "https", let host = url.host else { return false }
        let path = url.path
        guard path.isEmpty || path == "/" else { return false }
        return HostKind(host: host) != .databricksApp
    }

    /// The URL with its path replaced by the mount, keeping scheme, host, port, query and fragment (O-MOUNT-4).
    public static func mounted(_ url: URL) -> URL {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        parts.path = mount
        return parts.url ?? url
    }

    /// Where a web-view navigation should go instead (O-MOUNT-6): a bare root (empty path or `/`) on a
    /// Databricks workspace host is rewritten to the mount at once, with no probe, keeping scheme, host, port,
    /// query and fragment; any other navigation (another path, a Databricks App, a generic host) → `nil`, it
    /// proceeds unchanged. Reason: a workspace's root is the workspace's own UI, never Omnigent's page, so a
    /// landing there (after sign-in, or from a link inside the page) is bounced back to the mount.
    public static func bounce(navigationTo url: URL) -> URL? {
        // Only a web address is bounced (the real app's `WorkspaceMountURLTests.testRejectsNonHTTPSchemes`).
        guard ["http", "https"].contains(url.scheme?.lowercased() ?? "") else { return nil }
        guard let host = url.host, HostKind(host: host) == .databricksWorkspace else { return nil }
        guard url.path.isEmpty || url.path == "/" else { return nil }
        return mounted(url)
    }

    /// How long the probe waits for the root's answer.
    public static let probeTimeout: Duration = .seconds(8)

    /// The probe's profile: one attempt, 8 s, no credential and no cookie (the kit's transports keep none).
    static let probeProfile = AppProfile(
        userAgent: OmnigentServer.profile.defaultHeaders["User-Agent"] ?? "CompanionKit-Omnigent/0.1",
        timeout: probeTimeout, retryPolicy: .never)

    /// Probes `url` with one HEAD to the origin root (O-MOUNT-2…5): 8 s, no cookies, same-origin
    /// redirects only (a hop to another origin is never requested). A `server: databricks` reply maps the URL
    /// to the mount; anything else, including any error, leaves it unchanged. Never throws.
    public static func discover(_ url: URL, environment: AppEnvironment) async -> URL {
        await discover(url, environment: environment, requiringHTTPS: true)
    }

    /// The probe, with the https requirement switchable for tests against a loopback http server.
    static func discover(_ url: URL, environment: AppEnvironment, requiringHTTPS: Bool) async -> URL {
        guard shouldProbe(url, requiringHTTPS: requiringHTTPS), let origin = origin(of: url) else { return url }
        let journal = environment.journal
        let redirects = RedirectPolicy(maxRedirects: 5, permits: { target in Self.origin(of: target) == origin })
        let client = environment.client(for: url, profile: probeProfile, redirects: redirects)
        do {
            var request = Request<Void>.empty(.head, "/")
            request.timeout = probeTimeout
            let (response, _) = try await client.open(request)
            if let final = response.url, Self.origin(of: final) != origin { return url }
            let server = response.headers["Server"]?.trimmingCharacters(in: .whitespaces).lowercased()
            guard server == "databricks" else { return url }
            journal.record(.link, "workspace mount discovered", fields: ["origin": origin])
            return mounted(url)
        } catch {
            journal.record(.link, "workspace probe failed; address kept", fields: ["error": error.description])
            return url
        }
    }

    /// The API base for a server URL (O-MOUNT-7): strip a trailing `/c/<id>`, drop query and
    /// fragment; a path equal to a mount maps to `<origin>/api/2.0/omnigent`, anything else is the URL itself.
    public static func apiBase(for url: URL) -> URL {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        var path = parts.path
        if let range = path.range(of: "/c/", options: .backwards), !path[range.upperBound...].contains("/") {
            path = String(path[..<range.lowerBound])
        }
        while path.hasSuffix("/") { path.removeLast() }
        parts.query = nil
        parts.fragment = nil
        parts.path = (path == mount || path == legacyMount) ? workspaceAPIBase : path
        return parts.url ?? url
    }

    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host):\(port)"
    }
}
