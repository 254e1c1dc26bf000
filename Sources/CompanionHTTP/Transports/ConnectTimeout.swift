import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPError {
    /// The detail of `unreachable` for a connection that was not accepted within the timeout (a server whose
    /// accept queue is full, an address nothing answers on): unlike `timedOut`, the request never left.
    static let connectTimeoutDetail = "the connection was not accepted within the timeout, so nothing was sent"

    /// `error` as the transport reports it once a request ran out of time: a URLSession timeout before any byte of
    /// `body` left is a connection never accepted (`unreachable`: nothing was sent), any other stays as it is.
    ///
    /// Rule: only a request with a body can be told apart (URLSession counts body bytes sent, not header bytes),
    /// so a timeout of a request without one stays `timedOut`: it may have left.
    static func connectTimeout(
        _ error: HTTPError, url: URL, hasBody: Bool, bodyBytesSent: Int64, headDelivered: Bool
    ) -> HTTPError {
        guard case .timedOut = error, hasBody, bodyBytesSent == 0, !headDelivered else { return error }
        return .unreachable(host: url.host ?? "the server", detail: connectTimeoutDetail)
    }
}
