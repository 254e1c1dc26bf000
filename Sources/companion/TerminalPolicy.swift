import CompanionCore

extension TransportPolicy {
    /// The terminal client's rule: plain http is accepted for a loopback host (local servers, tests) unless
    /// `--https-only` asks for the release build's rule, which refuses it too.
    static func terminal(httpsOnly: Bool) -> TransportPolicy {
        httpsOnly ? .httpsOnly : .allowingInsecureLoopback
    }
}

extension Arguments {
    /// The transport policy this command line asks for (`--https-only`, or the terminal's default).
    var transportPolicy: TransportPolicy { .terminal(httpsOnly: flag("https-only")) }
}
