import CompanionCore
import Foundation

/// A failure an operation reports to the page: a stable code and a sentence.
///
/// Rule: the message is written by the app for the page, never an underlying error's text, so no secret,
/// path or server detail can leak into a reply.
public struct BridgeOpError: Error, Sendable, Hashable {
    /// A stable code such as `unknown_op`, `bad_args` or `not_available`.
    public let code: String
    /// A sentence for the page's developer.
    public let message: String

    /// Creates a failure.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// The op is not registered.
    public static func unknownOp(_ op: String) -> BridgeOpError {
        BridgeOpError(code: "unknown_op", message: "unknown op \(op.prefix(128))")
    }
}

/// The operations a bridge answers, each with a typed handler.
///
/// Rules: arguments are decoded into the handler's `Args` type (a mismatch is a `bad_args` reply and the
/// handler does not run); a result is encoded from the handler's `Result`; an unregistered op gets an
/// `unknown_op` reply with no side effect; a handler's own `BridgeOpError` is passed through, any other
/// error becomes a generic `failed` reply so its text never reaches the page.
public struct BridgeOpRegistry: Sendable {
    /// A type-erased handler: JSON arguments in, a JSON result or a failure out.
    public typealias Handler = @Sendable (JSONValue) async -> Result<JSONValue, BridgeOpError>

    private var handlers: [String: Handler] = [:]
    /// The registered op names, in registration order (what a bootstrap script advertises).
    public private(set) var ops: [String] = []

    /// Creates an empty registry.
    public init() {}

    /// Registers `op` with a typed handler; registering a name again replaces its handler.
    public mutating func register<Args: Decodable & Sendable, Output: Encodable & Sendable>(
        _ op: String, arguments: Args.Type = Args.self,
        handler: @escaping @Sendable (Args) async throws -> Output
    ) {
        if handlers[op] == nil { ops.append(op) }
        handlers[op] = { json in
            guard let args = try? JSONDecoder().decode(Args.self, from: Data(json.jsonString().utf8)) else {
                return .failure(
                    BridgeOpError(code: "bad_args", message: "The arguments of \(op) do not have the expected shape."))
            }
            let output: Output
            do {
                output = try await handler(args)
            } catch {
                return .failure(
                    (error as? BridgeOpError)
                        ?? BridgeOpError(code: "failed", message: "The app could not complete \(op)."))
            }
            guard let data = try? JSONEncoder().encode(output),
                let value = try? JSONDecoder().decode(JSONValue.self, from: data)
            else {
                return .failure(BridgeOpError(code: "failed", message: "The app could not encode the result of \(op)."))
            }
            return .success(value)
        }
    }

    /// Runs `request` and returns its reply (`id` echoed).
    public func dispatch(_ request: BridgeRequest) async -> BridgeReply {
        let id = request.id ?? .null
        guard let handler = handlers[request.op] else {
            return BridgeReply(id: id, outcome: .failure(.unknownOp(request.op)))
        }
        switch await handler(request.args) {
        case .success(let value): return BridgeReply(id: id, outcome: .success(value))
        case .failure(let error): return BridgeReply(id: id, outcome: .failure(error))
        }
    }
}

/// Arguments of an op that takes none: any value (including a missing one, `null`) is accepted.
public struct NoArguments: Decodable, Sendable, Hashable {
    /// Creates the empty argument value.
    public init() {}

    /// Accepts any value.
    public init(from decoder: any Decoder) throws {}
}
