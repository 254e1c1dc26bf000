import PrompTugalCore
import Testing

@Test func moduleLinks() {
    #expect(PrompTugalCoreModule.name == "PrompTugalCore")
}
