import Testing

/// Every suite that resets the Certain stand-in's fixture, run one test at a time: they share one server.
@Suite(.serialized, .exclusive("certain")) enum CertainStandIn {}
