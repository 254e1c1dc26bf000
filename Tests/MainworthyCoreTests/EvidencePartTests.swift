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

    // Mutation survivor m-44f328082d: a member that is an object without a name reads as its own fields, each
    // labelled with the member's label before its own; an empty one adds nothing.
    @Test func anObjectWithoutANameReadsAsItsFieldsUnderItsLabel() {  // O-22
        let part = EvidencePart(
            kind: "review",
            value: ["finding": ["step": 3, "missing_part": "expected result"], "empty": .object([:])])
        #expect(
            part.fields == [
                .init(label: "finding missing part", text: "expected result"), .init(label: "finding step", text: "3"),
            ])
    }
}
