import CompanionCore
import CompanionHTTP
import Foundation
import Testing

/// The per-server choice of plain http for one server's home address (H-NET-3 for every app): the policy it makes,
/// what it covers (that origin only), and how it is stored.
@Suite struct PlainHTTPHomeTests {
    var home: URL { URL(string: "http://127.0.0.1:8123") ?? URL(fileURLWithPath: "/") }

    func address(_ text: String) throws -> ServerAddress { try ServerAddress(parsing: text, policy: .development) }

    @Test("NET-HTTP-1: a home address's origin is allowed over http, and no other port, host or scheme change")
    func policyCoversOneOrigin() throws {
        let base = TransportPolicy.httpsOnly
        #expect(!base.permits(home))
        let policy = base.allowingPlainHTTP(toHome: try address("http://127.0.0.1:8123"))
        #expect(policy.permits(home))
        #expect(policy.permits(URL(string: "http://127.0.0.1:8123/api/states?x=1")!))
        #expect(!policy.permits(URL(string: "http://127.0.0.1:8124/")!))
        #expect(!policy.permits(URL(string: "http://[::1]:8123/")!))
        #expect(!policy.permits(URL(string: "http://ha.example.org/")!))
        // An https home address adds nothing; port 80 is the same origin written either way.
        #expect(base.allowingPlainHTTP(toHome: try address("https://127.0.0.1")) == base)
        let eighty = base.allowingPlainHTTP(toHome: try address("http://nas.lan:80"))
        #expect(eighty.permits(URL(string: "http://nas.lan/")!))
        #expect(try ServerAddress(parsing: "http://127.0.0.1:8123", policy: policy).scheme == "http")
        #expect(throws: ServerAddressError.insecureHTTPNotAllowed(host: "127.0.0.1")) {
            try ServerAddress(parsing: "http://127.0.0.1:9000", policy: policy)
        }
    }

    @Test(
        "NET-HTTP-2: a server's network allows http to its home address only with the named risk; the away address stays https only"
    )
    func networkChoice() throws {
        var network = ServerNetwork(
            server: try address("https://ha.example.org"), internalAddress: try address("http://127.0.0.1:8123"))
        #expect(network.usableInternalAddress(under: .httpsOnly) == nil)
        #expect(network.internalAddressRefusal(under: .httpsOnly) == .insecureHTTP(host: "127.0.0.1"))
        #expect(network.policy(under: .httpsOnly) == .httpsOnly)
        network.allowPlainHTTPAtHome(
            try address("http://127.0.0.1:8123"), accepting: .homeNetworkCanReadAndChangeTraffic)
        #expect(network.usableInternalAddress(under: .httpsOnly) == (try address("http://127.0.0.1:8123")))
        #expect(network.internalAddressRefusal(under: .httpsOnly) == nil)
        #expect(network.policy(under: .httpsOnly).permits(home))
        #expect(!network.isDefault)
        #expect(PlainHTTPRisk.homeNetworkCanReadAndChangeTraffic.description.contains("anyone on the home network"))
        // An http away address is never allowed by the home choice.
        var away = ServerNetwork(
            server: try address("http://ha.example.org"), internalAddress: try address("http://127.0.0.1:8123"))
        away.plainHTTPAtHome = .homeNetworkCanReadAndChangeTraffic
        #expect(!away.policy(under: .httpsOnly).permits(URL(string: "http://ha.example.org/")!))
    }

    @Test("NET-HTTP-3: the choice and the http home address are stored together; without the choice it does not load")
    func stored() throws {
        var network = ServerNetwork(server: try address("https://ha.example.org"))
        // A home address that is not loopback (never dialled): loopback http loads without the choice.
        network.allowPlainHTTPAtHome(
            try address("http://nas.lan:8123"), accepting: .homeNetworkCanReadAndChangeTraffic)
        let data = try JSONEncoder().encode(network)
        #expect(try JSONDecoder().decode(ServerNetwork.self, from: data) == network)
        let text = String(decoding: data, as: UTF8.self)
        let withoutChoice = text.replacingOccurrences(
            of: #","plainHTTPAtHome":"homeNetworkCanReadAndChangeTraffic""#, with: ""
        )
        .replacingOccurrences(of: #""plainHTTPAtHome":"homeNetworkCanReadAndChangeTraffic","#, with: "")
        #expect(withoutChoice != text)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ServerNetwork.self, from: Data(withoutChoice.utf8))
        }
        // Settings stored before the choice existed still load.
        let old = #"{"server":"https:\/\/ha.example.org","internalAddress":"https:\/\/127.0.0.1:8123","trust":{}}"#
        let plain = ServerNetwork(
            server: try address("https://ha.example.org"), internalAddress: try address("https://127.0.0.1:8123"))
        let trust = String(decoding: try JSONEncoder().encode(plain.trust), as: UTF8.self)
        let decoded = try JSONDecoder().decode(
            ServerNetwork.self,
            from: Data(old.replacingOccurrences(of: #""trust":{}"#, with: #""trust":"# + trust).utf8))
        #expect(decoded == plain && decoded.plainHTTPAtHome == nil)
    }
}
