import MainworthyCore
import Testing

@Test func moduleLinks() {
    #expect(MainworthyCoreModule.name == "MainworthyCore")
}
