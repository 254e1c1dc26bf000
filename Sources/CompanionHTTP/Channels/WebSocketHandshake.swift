import CompanionCore
import Foundation

/// The opening handshake of a client (RFC 6455 §4.1): the upgrade request it sends and the check of the answer.
///
/// Rules: the key is 16 random bytes in base64, fresh per connection; the answer must be `101` with
/// `Upgrade: websocket`, `Connection: Upgrade` and `Sec-WebSocket-Accept` equal to base64(SHA-1(key + the RFC's
/// GUID)); no extension or subprotocol is offered, so an answer naming one is refused. Any other status is the
/// server's refusal, carried with its status and its own sentence.
public struct WebSocketHandshake: Sendable, Hashable {
    /// The `Sec-WebSocket-Key` sent.
    public let key: String

    /// The GUID of RFC 6455 §1.3.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// A handshake with a key made from `random`.
    public init(random: any RandomSource = SystemRandomSource()) {
        var bytes: [UInt8] = []
        for _ in 0..<2 {
            let value = random.next()
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8((value >> UInt64(shift)) & 0xFF)) }
        }
        key = Data(bytes).base64EncodedString()
    }

    /// A handshake with the given key (tests: RFC 6455's example key).
    public init(key: String) { self.key = key }

    /// The `Sec-WebSocket-Accept` a server must answer `key` with.
    public static func accept(for key: String) -> String {
        Data(SHA1.digest(Array((key + guid).utf8))).base64EncodedString()
    }

    /// The upgrade request for `url` (`ws`, `wss`, `http` or `https`), with `headers` added (an `Authorization`,
    /// an `Origin`); header values holding CR or LF are left out.
    public func request(for url: URL, headers: HTTPHeaders = HTTPHeaders()) -> [UInt8] {
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        let scheme = url.scheme?.lowercased() ?? "ws"
        let defaultPort = scheme == "wss" || scheme == "https" ? 443 : 80
        var host = url.host ?? "localhost"
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        if let port = url.port, port != defaultPort { host += ":\(port)" }
        var lines = [
            "GET \(target) HTTP/1.1", "Host: \(host)", "Upgrade: websocket", "Connection: Upgrade",
            "Sec-WebSocket-Key: \(key)", "Sec-WebSocket-Version: 13",
        ]
        for (name, value) in headers where !Self.isOwn(name) {
            guard !(name + value).contains(where: { $0 == "\r" || $0 == "\n" }) else { continue }
            lines.append("\(name): \(value)")
        }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    private static func isOwn(_ name: String) -> Bool {
        ["host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions"]
            .contains(name.lowercased())
    }

    /// The index just past the blank line that ends a response head in `bytes`, or `nil` while it has not come.
    public static func headEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index] == 0x0A && bytes[index - 1] == 0x0D && bytes[index - 2] == 0x0A && bytes[index - 3] == 0x0D {
            return index + 1
        }
        return nil
    }

    /// The status, reason phrase and headers of a response head (its bytes up to the blank line).
    public static func parseHead(_ head: [UInt8]) -> (status: Int, reason: String, headers: HTTPHeaders)? {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        guard !lines.isEmpty else { return nil }
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else { return nil }
        var headers = HTTPHeaders()
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
            let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            if let existing = headers[name] { headers[name] = existing + ", " + value } else { headers[name] = value }
        }
        return (status, parts.count > 2 ? String(parts[2]) : "", headers)
    }

    /// The server's own sentence for a refused upgrade: a JSON body's `message` (or `error.message`, or a string
    /// `error`), a plain-text body's first 200 characters, else the status line's reason phrase.
    public static func sentence(reason: String, headers: HTTPHeaders, body: [UInt8]) -> String {
        let type = (headers["Content-Type"] ?? "").lowercased()
        if type.contains("json"), let value = JSONValue(data: Data(body)) {
            let said =
                value["message"]?.stringValue ?? value["error"]?["message"]?.stringValue
                ?? value["error"]?.stringValue
            if let said, !said.isEmpty { return said }
        }
        if type.hasPrefix("text/plain") {
            let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty { return String(text.prefix(200)) }
        }
        return reason
    }

    /// Why a `101` answer is not a valid upgrade for this key, or `nil` when it is.
    public func problem(with headers: HTTPHeaders) -> String? {
        guard headers["Upgrade"]?.lowercased().contains("websocket") == true else {
            return "the server's answer has no Upgrade: websocket"
        }
        let connection = (headers["Connection"] ?? "").lowercased().split(separator: ",")
        guard connection.contains(where: { $0.trimmingCharacters(in: .whitespaces) == "upgrade" }) else {
            return "the server's answer has no Connection: Upgrade"
        }
        guard headers["Sec-WebSocket-Accept"] == Self.accept(for: key) else {
            return "the server's Sec-WebSocket-Accept does not match the key sent"
        }
        if let extensions = headers["Sec-WebSocket-Extensions"], !extensions.isEmpty {
            return "the server chose the extension \(extensions), which was not offered"
        }
        if let chosen = headers["Sec-WebSocket-Protocol"], !chosen.isEmpty {
            return "the server chose the subprotocol \(chosen), which was not offered"
        }
        return nil
    }
}

/// SHA-1 (FIPS 180-4), only for the handshake's `Sec-WebSocket-Accept`: the RFC fixes it there, where it
/// protects nothing (it proves the server read the key). Never used for anything that must resist collisions.
enum SHA1 {
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var data = message
        let bitLength = UInt64(message.count) * 8
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { data.append(UInt8((bitLength >> UInt64(shift)) & 0xFF)) }
        var w = [UInt32](repeating: 0, count: 80)
        for chunk in stride(from: 0, to: data.count, by: 64) {
            for index in 0..<16 {
                let base = chunk + index * 4
                w[index] =
                    UInt32(data[base]) << 24 | UInt32(data[base + 1]) << 16 | UInt32(data[base + 2]) << 8
                    | UInt32(data[base + 3])
            }
            for index in 16..<80 {
                let value = w[index - 3] ^ w[index - 8] ^ w[index - 14] ^ w[index - 16]
                w[index] = value << 1 | value >> 31
            }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for index in 0..<80 {
                let (f, k): (UInt32, UInt32)
                switch index {
                case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let temp = (a << 5 | a >> 27) &+ f &+ e &+ k &+ w[index]
                (e, d, c, b, a) = (d, c, b << 30 | b >> 2, a, temp)
            }
            h[0] &+= a
            h[1] &+= b
            h[2] &+= c
            h[3] &+= d
            h[4] &+= e
        }
        return h.flatMap { word in
            [UInt8(word >> 24), UInt8((word >> 16) & 0xFF), UInt8((word >> 8) & 0xFF), UInt8(word & 0xFF)]
        }
    }
}
