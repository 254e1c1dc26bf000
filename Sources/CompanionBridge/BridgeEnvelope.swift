import CompanionCore
import Foundation

/// How a page shapes its messages.
public enum BridgeDialect: String, Sendable, Hashable {
    /// `{id, op, args}` requests answered by `{id, ok, result}` or `{id, ok:false, error:{code, message}}`
    /// (PrompTugal, P-OPEN-14). A request without an `id` is dropped: nothing could be answered.
    case request
    /// `{method, …}` messages whose other members are the arguments (Omnigent's `omnigentNative`); they are
    /// not answered by a reply envelope, the app emits into the page instead.
    case method
}

/// One message from a page to the app, after decoding.
public struct BridgeRequest: Sendable, Hashable {
    /// The id to echo in the reply (a string or an integer); `nil` in the `method` dialect.
    public let id: JSONValue?
    /// The operation or method name, such as `schedule.get` or `setBadgeCount`.
    public let op: String
    /// The arguments: `args` in the `request` dialect, the other members in the `method` dialect.
    public let args: JSONValue

    /// Creates a request.
    public init(id: JSONValue?, op: String, args: JSONValue) {
        self.id = id
        self.op = op
        self.args = args
    }

    /// Whether two requests mean the same message (ids and arguments compared with `semanticallyEquals`).
    public func semanticallyEquals(_ other: BridgeRequest) -> Bool {
        op == other.op && args.semanticallyEquals(other.args)
            && (id ?? .null).semanticallyEquals(other.id ?? .null)
    }
}

/// An answer to a `request`-dialect message.
public struct BridgeReply: Sendable, Hashable {
    /// The request's id, echoed.
    public let id: JSONValue
    /// The result on success, or the failure.
    public let outcome: Outcome

    /// Success or failure of an operation.
    public enum Outcome: Sendable, Hashable {
        /// The operation succeeded with this result.
        case success(JSONValue)
        /// The operation failed.
        case failure(BridgeOpError)
    }

    /// Creates a reply.
    public init(id: JSONValue, outcome: Outcome) {
        self.id = id
        self.outcome = outcome
    }

    /// The reply as a JSON value: `{id, ok:true, result}` or `{id, ok:false, error:{code, message}}`.
    public var json: JSONValue {
        switch outcome {
        case .success(let result):
            return .object(["id": id, "ok": .bool(true), "result": result])
        case .failure(let error):
            return .object([
                "id": id, "ok": .bool(false),
                "error": .object(["code": .string(error.code), "message": .string(error.message)]),
            ])
        }
    }
}

/// Decodes and encodes bridge messages.
///
/// Rules: a message must be a JSON object of at most `maximumBytes` when encoded; the operation name is a
/// non-empty string of at most 128 characters; in the `request` dialect `id` is a string (≤ 256 characters) or
/// an integer and `args` is optional (`null` when absent). Anything else is a typed `BridgeEnvelopeError`,
/// never a crash, and the message is dropped.
public enum BridgeEnvelopeCodec {
    /// The largest message accepted, in bytes of JSON.
    public static let maximumBytes = 1 << 20

    /// Decodes a message from JSON bytes.
    public static func decode(_ data: Data, dialect: BridgeDialect) throws(BridgeEnvelopeError) -> BridgeRequest {
        guard data.count <= maximumBytes else { throw .tooLarge }
        guard let value = JSONValue(data: data) else { throw .notJSON }
        return try decode(value, dialect: dialect)
    }

    /// Decodes a message already converted to a JSON value (what the web view's message body becomes).
    public static func decode(_ value: JSONValue, dialect: BridgeDialect) throws(BridgeEnvelopeError) -> BridgeRequest {
        guard case .object(var members) = value else { throw .notAnObject }
        let nameKey = dialect == .request ? "op" : "method"
        guard let name = members[nameKey]?.stringValue, !name.isEmpty, name.count <= 128 else {
            throw .missingName(nameKey)
        }
        switch dialect {
        case .request:
            let id = members["id"]
            switch id {
            case .string(let text) where text.count <= 256: break
            case .integer: break
            default: throw .missingID
            }
            return BridgeRequest(id: id, op: name, args: members["args"] ?? .null)
        case .method:
            members[nameKey] = nil
            return BridgeRequest(id: nil, op: name, args: .object(members))
        }
    }

    /// The request as a JSON value in `dialect`: the inverse of `decode` for every value it accepts.
    public static func json(_ request: BridgeRequest, dialect: BridgeDialect) -> JSONValue {
        switch dialect {
        case .request:
            return .object(["id": request.id ?? .null, "op": .string(request.op), "args": request.args])
        case .method:
            var members = request.args.objectValue ?? [:]
            members["method"] = .string(request.op)
            return .object(members)
        }
    }

    /// The reply as JSON bytes (sorted keys).
    public static func encode(_ reply: BridgeReply) -> Data { Data(reply.json.jsonString().utf8) }
}

/// Why a bridge message could not be read.
public enum BridgeEnvelopeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The message is larger than `BridgeEnvelopeCodec.maximumBytes`.
    case tooLarge
    /// The bytes are not JSON.
    case notJSON
    /// The message is JSON but not an object.
    case notAnObject
    /// The operation member (`op` or `method`, carried) is missing, not a string, empty or too long.
    case missingName(String)
    /// A `request`-dialect message without a usable `id` (a string or an integer).
    case missingID

    /// A sentence for the journal.
    public var description: String {
        switch self {
        case .tooLarge: return "The bridge message is larger than 1 MiB and was dropped."
        case .notJSON: return "The bridge message is not JSON and was dropped."
        case .notAnObject: return "The bridge message is not a JSON object and was dropped."
        case .missingName(let key): return "The bridge message has no valid \"\(key)\" and was dropped."
        case .missingID: return "The bridge request has no id (a string or an integer) and was dropped."
        }
    }
}
