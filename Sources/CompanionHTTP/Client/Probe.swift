import CompanionCore
import Foundation

/// What a server answered when the app first looked at it.
public struct ProbeReport: Sendable, Hashable {
    /// One request of the probe and how it went.
    public struct Step: Sendable, Hashable {
        /// The path asked for.
        public var path: String
        /// The status, when the server answered.
        public var status: Int?
        /// The failure, when it did not answer usefully.
        public var error: HTTPError?
    }

    /// The base URL probed.
    public var baseURL: URL
    /// The server's version, from `/api/version`.
    public var version: String?
    /// The manifest, from `/.well-known/<name>.json`, when the server has one.
    public var manifest: JSONValue?
    /// Every request made, in order.
    public var steps: [Step]

    /// Whether anything answered at all (any status counts: the server is there).
    public var isReachable: Bool { steps.contains { $0.status != nil } }

    /// One sentence: what answered, or why nothing did.
    public var summary: String {
        if let version {
            return "\(HTTPError.describe(baseURL)) runs version \(version)"
                + (manifest == nil ? "." : ", with a manifest.")
        }
        if isReachable {
            let statuses = steps.compactMap { step in step.status.map { "\(step.path) → \($0)" } }
            return
                "\(HTTPError.describe(baseURL)) answered (\(statuses.joined(separator: ", "))) but did not say its version."
        }
        return steps.first?.error?.description ?? "Nothing was asked."
    }
}

extension Client {
    /// Looks at the server: its version at `/api/version` and, when `manifestName` is given, its
    /// manifest at `/.well-known/<manifestName>.json`. Never throws: the report says what answered,
    /// or why nothing did. A connectivity failure on the version stops the probe (the manifest
    /// would fail the same way).
    public func probe(manifestName: String? = nil) async -> ProbeReport {
        var report = ProbeReport(baseURL: baseURL, steps: [])
        let version = await probeStep("/api/version", into: &report)
        if let version {
            report.version = version["version"]?.stringValue ?? version.stringValue
        } else if let error = report.steps.last?.error, error.endsProbe {
            return report
        }
        if let name = manifestName, let manifest = await probeStep("/.well-known/\(name).json", into: &report) {
            report.manifest = manifest
        }
        return report
    }

    private func probeStep(_ path: String, into report: inout ProbeReport) async -> JSONValue? {
        var request = Request<JSONValue>.get(path)
        request.timeout = .seconds(8)
        do {
            let (value, response) = try await exchange(request)
            report.steps.append(ProbeReport.Step(path: path, status: response.status))
            return value
        } catch {
            report.steps.append(ProbeReport.Step(path: path, status: error.statusCode, error: error))
            return nil
        }
    }
}

extension HTTPError {
    /// Whether asking the same server another path would fail the same way.
    fileprivate var endsProbe: Bool {
        switch self {
        case .offline, .unreachable, .timedOut, .tls, .insecureTransport, .cancelled, .untrustedCertificate,
            .clientCertificateRequired, .proxySignInRequired:
            return true
        default: return false
        }
    }
}
