import CertainCore
import Testing

@Test func moduleLinks() {
    #expect(CertainCoreModule.name == "CertainCore")
}
