import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionCrypto
import CompanionHTTP
import CompanionTestSupport
import Foundation
import HomeAssistantCore

/// The test Home Assistant that `scripts/servers start homeassistant` runs (Servers/homeassistant): its address
/// and the users' secrets, read from the files it exports. A missing variable fails the test loudly.
struct HomeAssistantFixture {
    let url: URL
    let user: String
    let password: String
    let totpUser: String
    let totpPassword: String
    let totpSecret: String
    let longLivedToken: String

    init() throws {
        url = try TestServers.url("HOMEASSISTANT_URL")
        user = try TestServers.value("HOMEASSISTANT_USER")
        password = try Self.file("HOMEASSISTANT_PASSWORD_FILE")
        totpUser = try TestServers.value("HOMEASSISTANT_TOTP_USER")
        totpPassword = try Self.file("HOMEASSISTANT_TOTP_PASSWORD_FILE")
        totpSecret = try Self.file("HOMEASSISTANT_TOTP_SECRET_FILE")
        longLivedToken = try Self.file("HOMEASSISTANT_TOKEN_FILE")
    }

    /// The `ServerTurn` every test sign-in (in process or through `companion homeassistant login`) takes around
    /// Home Assistant's password step.
    static let passwordStep = "homeassistant-password"

    static func file(_ variable: String) throws -> String {
        let path = try TestServers.value(variable)
        return try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The server's address under `environment`'s policy.
    func address(_ environment: AppEnvironment) throws -> ServerAddress {
        try HomeAssistantAddress.parse(url.absoluteString, policy: environment.transportPolicy)
    }

    /// The TOTP code of the second-factor user at `date` (RFC 6238: HMAC-SHA-1, 30 s, 6 digits).
    func totp(at date: Date = Date()) -> String {
        TOTP.code(secretBase32: totpSecret, at: date)
    }
}

/// RFC 6238 codes for the test user (the kit has no SHA-1: a test-only implementation, checked against RFC 6238's
/// own vector in `TOTPTests`).
enum TOTP {
    static func code(secretBase32: String, at date: Date, digits: Int = 6) -> String {
        code(key: base32(secretBase32), counter: UInt64(date.timeIntervalSince1970 / 30), digits: digits)
    }

    static func code(key: [UInt8], counter: UInt64, digits: Int) -> String {
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - 8 * UInt64($0))) }
        let mac = hmacSHA1(key: key, message: message)
        let offset = Int(mac[19] & 0x0F)
        let value =
            (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulo: UInt32 = 1
        for _ in 0..<digits { modulo *= 10 }
        let text = String(value % modulo)
        return String(repeating: "0", count: digits - text.count) + text
    }

    static func base32(_ text: String) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bits: UInt64 = 0
        var count = 0
        var out: [UInt8] = []
        for character in text.uppercased() where character != "=" {
            guard let index = alphabet.firstIndex(of: character) else { continue }
            bits = (bits << 5) | UInt64(index)
            count += 5
            if count >= 8 {
                out.append(UInt8(truncatingIfNeeded: bits >> UInt64(count - 8)))
                count -= 8
            }
        }
        return out
    }

    static func hmacSHA1(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? sha1(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = sha1(block.map { $0 ^ 0x36 } + message)
        return sha1(block.map { $0 ^ 0x5C } + inner)
    }

    static func sha1(_ input: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var data = input + [0x80]
        while data.count % 64 != 56 { data.append(0) }
        let length = UInt64(input.count) * 8
        data += (0..<8).map { UInt8(truncatingIfNeeded: length >> (56 - 8 * UInt64($0))) }
        for chunk in stride(from: 0, to: data.count, by: 64) {
            var w = (0..<16).map { index in
                (0..<4).reduce(UInt32(0)) { ($0 << 8) | UInt32(data[chunk + index * 4 + $1]) }
            }
            for index in 16..<80 {
                let x = w[index - 3] ^ w[index - 8] ^ w[index - 14] ^ w[index - 16]
                w.append((x << 1) | (x >> 31))
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
                let t = ((a << 5) | (a >> 27)) &+ f &+ e &+ k &+ w[index]
                (e, d, c, b, a) = (d, c, (b << 30) | (b >> 2), a, t)
            }
            h = [h[0] &+ a, h[1] &+ b, h[2] &+ c, h[3] &+ d, h[4] &+ e]
        }
        return h.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32($0))) } }
    }
}

/// Records every request that passes (method, path, body), for tests that check what was sent.
final class RequestRecorder: Middleware {
    private let seen = Locked<[HTTPRequest]>([])

    var requests: [HTTPRequest] { seen.withLock { $0 } }

    /// The paths of the requests, as `"POST /auth/login_flow"`.
    var lines: [String] { requests.map { "\($0.method.rawValue) \($0.url.path)" } }

    func intercept(_ request: HTTPRequest, next: HTTPNext) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        seen.withLock { $0.append(request) }
        // A login flow's step checks the password (bcrypt): one at a time in this process (`ServerTurn`).
        guard request.method == .post, request.url.path.hasPrefix("/auth/login_flow/") else {
            return try await next(request)
        }
        return try await ServerTurn.take(HomeAssistantFixture.passwordStep) { () async throws(HTTPError) in
            try await next(request)
        }
    }
}

extension AppEnvironment {
    /// A sign-in at `address` whose requests `recorder` sees.
    func homeAssistantSignIn(
        _ address: ServerAddress, identity: LoginClient? = nil, recorder: RequestRecorder
    ) throws -> HomeAssistantSignIn {
        var profile = HomeAssistantServer.profile
        profile.middlewares = [recorder]
        let id = try identity ?? LoginClient.headless(for: address)
        return HomeAssistantSignIn(address: address, client: client(for: address.url, profile: profile), identity: id)
    }
}
