import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import MainworthyCore
import Testing

/// The editor's own counting and warnings, without a server.
@Suite struct EditorRules {
    // M-EDIT-3: UTF-16 units, not characters or code points.
    @Test func titlesAreCountedInUTF16Units() {
        // Two emoji and 297 letters: 299 characters and 299 code points, but 301 UTF-16 units, so too long.
        let emoji = repeated("😀", 2) + repeated("a", 297)
        #expect(EditorWarning.check(CaseDocument(title: emoji), reason: "") == [.titleTooLong(units: 301)])
        #expect(EditorWarning.check(CaseDocument(title: repeated("a", 300)), reason: "").isEmpty)
        let exactly = repeated("😀", 100) + repeated("é", 50) + repeated("e\u{301}", 25)
        #expect(exactly.utf16.count == 300 && exactly.count == 175)
        #expect(EditorWarning.check(CaseDocument(title: exactly), reason: "").isEmpty)
        #expect(EditorWarning.check(CaseDocument(title: exactly + "a"), reason: "") == [.titleTooLong(units: 301)])
        // One emoji too many is 302 units, though only 176 characters.
        #expect(EditorWarning.check(CaseDocument(title: exactly + "😀"), reason: "") == [.titleTooLong(units: 302)])
    }

    // M-EDIT-6, O-16: each warning, NBSP counted as whitespace.
    @Test func everyWhitespaceWarningOfO16() {
        func warnings(_ title: String, _ steps: [CaseStep] = [], pre: String = "", reason: String = "")
            -> [EditorWarning]
        {
            EditorWarning.check(CaseDocument(title: title, preconditions: pre, steps: steps), reason: reason)
        }
        #expect(warnings("") == [.titleEmpty] && warnings(" \u{A0}\t") == [.titleEmpty])
        #expect(warnings(" Pay") == [.titleLeadingWhitespace])
        #expect(warnings("Pay\u{A0}") == [.titleTrailingWhitespace])
        #expect(warnings("Pay\tby card") == [.titleTab])
        #expect(warnings("Pay\nby card") == [.titleLineBreak])
        #expect(warnings("Pay\u{A0}by card").isEmpty)  // NBSP inside a title is allowed
        #expect(warnings("Pay", [CaseStep(action: " \u{A0}")]) == [.actionEmpty(step: 1)])
        #expect(warnings("Pay", [CaseStep(action: "Open", expected: "\u{A0}")]) == [.expectedWhitespaceOnly(step: 1)])
        #expect(warnings("Pay", [CaseStep(action: "Open", expected: "")]).isEmpty)
        #expect(warnings("Pay", pre: " \n") == [.preconditionsWhitespaceOnly])
        #expect(warnings("Pay", reason: "  ") == [.reasonWhitespaceOnly])
        #expect(warnings("Pay", reason: " why") == [.reasonLeadingWhitespace])
        #expect(warnings("Pay", reason: "why\u{A0}") == [.reasonTrailingWhitespace])
        #expect(warnings("Pay", reason: repeated("r", 501)) == [.reasonTooLong(units: 501)])
    }

    // M-EDIT-7: the body names the version opened.
    @Test func anEditSendsTheVersionOpenedAsBaseVersion() throws {
        let body = ProposalBody(
            .editCase(caseID: "c_12", baseVersion: 3),
            document: CaseDocument(title: "T", steps: [CaseStep(action: "A")]),
            reason: "")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(body), as: UTF8.self)
        #expect(json.contains(#""base_version":3"#) && json.contains(#""op":"edit_case""#))
        #expect(json.contains(#""reason":null"#))
        let create = ProposalBody(.createCase(folderID: nil), document: CaseDocument(title: "T"), reason: nil)
        #expect(String(decoding: try encoder.encode(create), as: UTF8.self).contains(#""folder_id":null"#))
    }
}

extension AgainstReferenceServer {
    @Suite struct Editor {
        @MainActor func savedFolder(_ root: CasesRootModel, _ editor: CaseEditorModel?) async throws -> String? {
            let editor = try #require(editor)
            editor.setTitle("Written in place")
            editor.addStep(action: "Open the page")
            await editor.save()
            guard case .adopted(let caseID, _) = editor.outcome else {
                Issue.record("not adopted: \(String(describing: editor.outcome))")
                return nil
            }
            let page = root.casePage(caseID)
            await page.refresh()
            return page.state.value?.folder.name
        }

        // M-EDIT-1
        @MainActor @Test func plusInAFolderWritesThereAndElsewhereToUnsorted() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            #expect(try await savedFolder(root, await root.list(.folder(id: "f_3")).newCase()) == "Payments")
            #expect(try await savedFolder(root, await root.newCase()) == "Unsorted")
            #expect(try await savedFolder(root, await root.list(.tag("smoke")).newCase()) == "Unsorted")
            #expect(try await savedFolder(root, await root.list(.all).newCase()) == "Unsorted")
            let bo = try await server.cases("bo")
            #expect(await bo.newCase() == nil)  // writing needs produce
        }

        // M-EDIT-2
        @MainActor @Test func stepsAreAddedRemovedAndReorderedEachWithAnOptionalExpectedResult() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let editor = try #require(await root.newCase())
            editor.setTitle("Reorder steps")
            editor.setPreconditions("A filled cart.")
            editor.addStep(action: "One", expected: "First")
            editor.addStep(action: "Two")
            editor.addStep(action: "Three", expected: "")
            editor.addStep(action: "Gone")
            editor.removeStep(at: 3)
            editor.moveStep(from: 2, to: 0)
            #expect(editor.document.steps.map(\.action) == ["Three", "One", "Two"])
            await editor.save()
            guard case .adopted(let caseID, _) = editor.outcome else {
                Issue.record("not adopted: \(String(describing: editor.outcome))")
                return
            }
            let page = root.casePage(caseID)
            await page.refresh()
            #expect(
                page.state.value?.steps == [
                    CaseStep(action: "Three"), CaseStep(action: "One", expected: "First"), CaseStep(action: "Two"),
                ])
            #expect(page.state.value?.preconditions == "A filled cart.")
        }

        // M-EDIT-2 (mutation survivors m-395ff15c3c, m-a277ee519a): a step moves to any position up to the last,
        // never past it.
        @MainActor @Test func aStepMovesUpToTheLastPositionAndNeverPastIt() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let editor = try #require(await root.newCase())
            editor.addStep(action: "Only")
            editor.moveStep(from: 0, to: 1)
            #expect(editor.document.steps.map(\.action) == ["Only"])
            editor.addStep(action: "Two")
            editor.addStep(action: "Three")
            editor.moveStep(from: 0, to: 2)
            #expect(editor.document.steps.map(\.action) == ["Two", "Three", "Only"])
            editor.moveStep(from: 0, to: 3)
            #expect(editor.document.steps.map(\.action) == ["Two", "Three", "Only"])
            editor.discard()
        }

        // M-EDIT-3: exactly 300 UTF-16 units with emoji and combining marks; 301 refused by both.
        @MainActor @Test func aTitleOf300UnitsSavesAnd301IsRefusedByBothSides() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let exactly = repeated("😀", 100) + repeated("é", 50) + repeated("e\u{301}", 25)
            let editor = try #require(await root.newCase())
            editor.addStep(action: "Open")
            editor.setTitle(exactly + "a")
            #expect(editor.titleUnits == 301 && !editor.canSave)
            editor.setTitle(exactly)
            #expect(editor.titleUnits == 300 && editor.canSave)
            await editor.save()
            guard case .adopted(let caseID, _) = editor.outcome else {
                Issue.record("not adopted: \(String(describing: editor.outcome))")
                return
            }
            let page = root.casePage(caseID)
            await page.refresh()
            #expect(page.state.value?.title == exactly)
            let connection = try await server.signedIn("ada")
            do {
                _ = try await server.propose(
                    connection,
                    ProposalBody(.createCase(folderID: nil), document: CaseDocument(title: exactly + "a"), reason: nil))
                Issue.record("301 units were accepted")
            } catch {
                #expect(error.code == "invalid")
                guard case .refused(let refusal) = error else { return }
                #expect(refusal.status == 422 && refusal.fields == ["title": "too_long"])
                #expect(refusal.message == "The title is longer than 300 UTF-16 units.")
            }
        }

        // M-EDIT-4
        @MainActor @Test func theReasonIsOptionalUpTo500Units() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let page = try await root.casePage(number: "C-21")
            await page.refresh()
            let editor = try #require(await page.edit())
            editor.setTitle("Checkout scenario 21, reworded")
            editor.setReason(repeated("r", 501))
            #expect(editor.warnings == [.reasonTooLong(units: 501)] && !editor.canSave)
            editor.setReason(repeated("😀", 250))
            #expect(editor.canSave)
            await editor.save()
            #expect(editor.outcome == .adopted(caseID: try await server.caseID("C-21"), version: 2))
            let connection = try await server.signedIn("ada")
            let (c22, c23) = (try await server.caseID("C-22"), try await server.caseID("C-23"))
            _ = try await server.propose(
                connection,
                ProposalBody(
                    .editCase(caseID: c22, baseVersion: 1), document: CaseDocument(title: "No reason"), reason: ""))
            do {
                _ = try await server.propose(
                    connection,
                    ProposalBody(
                        .editCase(caseID: c23, baseVersion: 1), document: CaseDocument(title: "Long reason"),
                        reason: repeated("r", 501)))
                Issue.record("a reason of 501 units was accepted")
            } catch {
                guard case .refused(let refusal) = error else { throw error }
                #expect(refusal.status == 422 && refusal.fields == ["reason": "too_long"])
            }
        }

        // M-EDIT-5
        @MainActor @Test func longPreconditionsLongStepsAndManyStepsAreAccepted() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let editor = try #require(await root.newCase())
            editor.setTitle("Large case")
            editor.setPreconditions(repeated("p", 100_000))
            editor.addStep(action: repeated("s", 20_000))
            for index in 2...500 { editor.addStep(action: "Step \(index)") }
            #expect(editor.canSave && editor.warnings.isEmpty)
            await editor.save()
            guard case .adopted(let caseID, _) = editor.outcome else {
                Issue.record("not adopted: \(String(describing: editor.outcome))")
                return
            }
            let page = root.casePage(caseID)
            await page.refresh()
            #expect(page.state.value?.steps.count == 500)
            #expect(page.state.value?.preconditions.count == 100_000)
            #expect(page.state.value?.steps.first?.action.count == 20_000)
        }

        // M-EDIT-6, O-16: every input the editor warns about, the server refuses with 422 and the field.
        @MainActor @Test func whitespaceWarningsDisableSaveAndTheServerRefusesTheSameInputs() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let connection = try await server.signedIn("ada")
            let step = [CaseStep(action: "Open")]
            let cases: [(CaseDocument, String, String)] = [
                (CaseDocument(title: "", steps: step), "", "title"),
                (CaseDocument(title: "\u{A0}\u{A0}", steps: step), "", "title"),
                (CaseDocument(title: " Pay by card", steps: step), "", "title"),
                (CaseDocument(title: "Pay by card\u{A0}", steps: step), "", "title"),
                (CaseDocument(title: "Pay\tby card", steps: step), "", "title"),
                (CaseDocument(title: "Pay by\ncard", steps: step), "", "title"),
                (CaseDocument(title: "Pay", steps: [CaseStep(action: "\u{A0}")]), "", "steps.0.action"),
                (CaseDocument(title: "Pay", steps: [CaseStep(action: "Open", expected: " ")]), "", "steps.0.expected"),
                (CaseDocument(title: "Pay", preconditions: "\t", steps: step), "", "preconditions"),
                (CaseDocument(title: "Pay", steps: step), "\u{A0}", "reason"),
                (CaseDocument(title: "Pay", steps: step), " Because", "reason"),
                (CaseDocument(title: "Pay", steps: step), "Because\u{A0}", "reason"),
            ]
            for (text, reason, field) in cases {
                let editor = try #require(await root.newCase())
                editor.setTitle(text.title)
                editor.setPreconditions(text.preconditions)
                for step in text.steps { editor.addStep(action: step.action, expected: step.expected) }
                editor.setReason(reason)
                #expect(!editor.canSave && editor.warnings.map(\.field) == [field], "\(text) \(reason)")
                editor.discard()
                do {
                    _ = try await server.propose(
                        connection, ProposalBody(.createCase(folderID: nil), document: text, reason: reason))
                    Issue.record("the server accepted \(text) with reason \(reason)")
                } catch {
                    guard case .refused(let refusal) = error else { throw error }
                    #expect(refusal.status == 422 && Array(refusal.fields.keys) == [field], "\(text)")
                }
            }
            // NBSP inside a title is no warning, and the server takes it.
            let fine = try await server.propose(
                connection,
                ProposalBody(.createCase(folderID: nil), document: CaseDocument(title: "Pay\u{A0}by card"), reason: nil)
            )
            #expect(fine.proposal.state == "adopted")
        }

        // M-EDIT-7, M-SAVE-3: the version opened is the base, even after the case moved on.
        @MainActor @Test func anEditUsesTheVersionOpenedEvenIfTheCaseChangedSince() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let page = try await root.casePage(number: "C-20")
            await page.refresh()
            let editor = try #require(await page.edit())
            #expect(editor.target == .edit(caseID: try await server.caseID("C-20"), baseVersion: 1))
            // Meanwhile someone else changes the steps (version 2).
            let original = try #require(page.state.value)
            _ = try await server.propose(
                try await server.signedIn("ada"),
                ProposalBody(
                    .editCase(caseID: try await server.caseID("C-20"), baseVersion: 1),
                    document: CaseDocument(
                        title: original.title, preconditions: original.preconditions,
                        steps: original.steps + [CaseStep(action: "Log out")]), reason: "A step was missing"))
            editor.setTitle("Checkout scenario 20, renamed")
            await editor.save()
            // Sent from version 1, the title change lands on top of version 2's steps: saved as version 3,
            // which differs from what was typed, so the draft stays.
            #expect(
                editor.outcome
                    == .adoptedButDifferent(caseID: try await server.caseID("C-20"), version: 3, fields: ["steps"]))
            let drafts = await root.drafts()
            #expect(editor.outcome?.keepsDraft == true && drafts.count == 1)
            #expect(editor.outcome?.sentence.contains("differs from what you typed") == true)
        }
    }
}
