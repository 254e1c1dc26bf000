import CompanionCore
import MainworthyCore
import Testing

/// Evidence of a kind the app has no typed form for is shown as its labelled text fields (O-22).
@Suite struct EvidencePartText {
    @Test func yesNoNumbersAndNamesReadAsLabelledText() {  // O-22
        let part = EvidencePart(
            kind: "overlap",
            value: [
                "blocking": true, "confirmed": false, "cases": 3, "owner": ["name": "Ada"],
                "suggested_case": ["number": "C-12"],
            ])
        #expect(
            part.fields == [
                .init(label: "blocking", text: "yes"), .init(label: "cases", text: "3"),
                .init(label: "confirmed", text: "no"), .init(label: "owner", text: "Ada"),
                .init(label: "suggested case", text: "C-12"),
            ])
        #expect(part.text == "blocking: yes; cases: 3; confirmed: no; owner: Ada; suggested case: C-12")
    }
}
