import CompanionCore
import Foundation

/// Finds the real servers `scripts/test` started, by the environment variables it exports.
///
/// Rule: a missing server fails the test that needs it, loudly; nothing is skipped.
public enum TestServers {
    /// Why a server could not be found.
    public struct Missing: Error, CustomStringConvertible {
        /// The environment variable that was not set.
        public let variable: String

        /// A sentence saying how to run the tests.
        public var description: String {
            "\(variable) is not set: run the tests through scripts/test, which starts the servers they need."
        }
    }

    /// The URL in environment variable `variable`.
    public static func url(_ variable: String) throws -> URL {
        guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty, let url = URL(string: text)
        else {
            throw Missing(variable: variable)
        }
        return url
    }

    /// The value of environment variable `variable`.
    public static func value(_ variable: String) throws -> String {
        guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty else {
            throw Missing(variable: variable)
        }
        return text
    }

    /// The fault server's primary origin.
    public static func fault() throws -> URL { try url("COMPANION_FAULT_URL") }
    /// The fault server's second origin (another port), for cross-origin cases.
    public static func faultSecondOrigin() throws -> URL { try url("COMPANION_FAULT_URL2") }
    /// A fault server origin whose root always answers 302 to its own `/workspace-root` (a workspace root).
    public static func faultRootSameOrigin() throws -> URL { try url("COMPANION_FAULT_ROOT_SAME_URL") }
    /// A fault server origin whose root always answers 302 to the second origin's root (another origin).
    public static func faultRootCrossOrigin() throws -> URL { try url("COMPANION_FAULT_ROOT_CROSS_URL") }
    /// The fault server's TLS listener with a self-signed certificate.
    public static func faultTLS() throws -> URL { try url("COMPANION_FAULT_TLS_URL") }
    /// The real Omnigent server in header (single-user) mode.
    public static func omnigent() throws -> URL { try url("OMNIGENT_URL") }
}
