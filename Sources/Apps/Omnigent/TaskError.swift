import CompanionCore
import Foundation

/// Why a session's last task failed: Omnigent's `last_task_error` (O-WATCH-2).
///
/// Omnigent 0.19.1 sends it as an object, `{"code": "native_turn_error", "message": "…"}`, present only while
/// the session is `failed`; a bare string (`"boom"`) reads as the message alone. Fields beyond the code and
/// the message (`title`, `cause`, `remediation`, `item_id`) are not shown and not read.
public struct TaskError: Codable, Sendable, Hashable {
    /// The server's error code, such as `native_turn_error` or `runner_failed_to_start`.
    public var code: String?
    /// The server's sentence, shown word for word.
    public var message: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case code, message
    }

    /// Creates an error value.
    public init(code: String? = nil, message: String? = nil) {
        self.code = code
        self.message = message
    }

    /// Reads the object form, or a bare string as the message.
    public init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            self.init(code: nil, message: text)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            code: try container.decodeIfPresent(String.self, forKey: .code),
            message: try container.decodeIfPresent(String.self, forKey: .message))
    }

    /// The sentence to show: the message, else the code.
    public var summary: String { message ?? code ?? "The last task failed." }
}
