import Foundation

/// `POST …/results` → 201: the new result and your earlier one in the slot (M-RUN-8).
public struct RecordReply: Sendable, Hashable, Codable {
    /// The result recorded.
    public var result: SlotResult
    /// Your earlier result in this slot, `nil` if you had none.
    public var yourPrevious: ResultBody?

    enum CodingKeys: String, CodingKey {
        case result
        case yourPrevious = "your_previous"
    }
}
