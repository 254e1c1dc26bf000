import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import MainworthyCore
import Testing

extension AgainstReferenceServer {
    @Suite struct SaveAndDrafts {
        @MainActor func editor(_ root: CasesRootScreen, _ number: String) async throws -> CaseEditor {
            let page = root.casePage(number)
            await page.refresh()
            return try #require(page.edit())
        }

        // M-SAVE-1
        @MainActor @Test func anAdoptedProposalOpensTheSavedVersionAndDiscardsTheDraft() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let memory = CaseMemory()
            let root = try await server.cases("ada", memory: memory)
            let editor = try await editor(root, "C-30")
            editor.setTitle("Checkout scenario 30, clearer")
            editor.setReason("Clearer title")
            #expect(memory.drafts(in: root.scope).count == 1)
            await editor.save()
            #expect(editor.outcome == .adopted(caseID: "c_30", version: 2))
            #expect(editor.outcome?.sentence == "Saved as version 2.")
            #expect(editor.saved?.state.value?.title == "Checkout scenario 30, clearer")
            #expect(editor.saved?.state.value?.version == 2 && editor.isClosed)
            #expect(memory.drafts(in: root.scope).isEmpty)
            let page = root.casePage("C-30")
            await page.readHistory()
            #expect(page.history?.value?.first?.reason == "Clearer title")
        }

        // M-SAVE-2, O-17
        @MainActor @Test func aWaitingProposalSaysItWaitsInTheQueueAndDiscardsTheDraft() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let memory = CaseMemory()
            let root = try await server.cases("ada", memory: memory)
            let legal = root.list(.folder(id: "f_7"))
            let editor = try #require(legal.newCase())
            editor.setTitle("Accept the terms")
            editor.addStep(action: "Open the terms", expected: "They are shown")
            await editor.save()
            guard case .waiting(let questionID) = editor.outcome else {
                Issue.record("not waiting: \(String(describing: editor.outcome))")
                return
            }
            #expect(editor.outcome?.sentence == "Your proposal waits in the Queue for acceptance.")
            #expect(memory.drafts(in: root.scope).isEmpty && editor.isClosed)
            let question = try await server.signedIn("ada").read(
                MainworthyAPI.question("shop", try #require(questionID)))
            #expect(question.kind == .proposal && question.title == "New case “Accept the terms”")
        }

        // M-SAVE-3: adopted, but the saved version cannot be read back.
        @MainActor @Test func anAdoptedSaveThatCannotBeReadBackKeepsTheDraftAndSaysSo() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let memory = CaseMemory()
            let root = try await server.cases("ada", memory: memory)
            let editor = try await editor(root, "C-31")
            editor.setTitle("Checkout scenario 31, clearer")
            try await server.fail("/api/projects/shop/cases/c_31", status: 500, times: 10)
            await editor.save()
            guard case .adoptedButUnread(let caseID, let version, let problem) = editor.outcome else {
                Issue.record("not unread: \(String(describing: editor.outcome))")
                return
            }
            #expect(caseID == "c_31" && version == 2)
            #expect(problem == "This failure was injected for /api/projects/shop/cases/c_31.")
            #expect(editor.outcome?.sentence.contains("could not be read back") == true)
            #expect(memory.drafts(in: root.scope).first?.document.title == "Checkout scenario 31, clearer")
            #expect(!editor.isClosed)
        }

        // M-SAVE-4: two users propose overlapping edits.
        @MainActor @Test func anOverlapNamesTheFieldsAndKeepsTheDraft() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            try await server.grant("bo", ["read", "produce"])
            let ada = try await server.cases("ada")
            let boMemory = CaseMemory()
            let bo = try await server.cases("bo", memory: boMemory)
            let adaEditor = try await editor(ada, "C-25")
            let boEditor = try await editor(bo, "C-25")
            adaEditor.setTitle("Checkout scenario 25 by ada")
            boEditor.setTitle("Checkout scenario 25 by bo")
            boEditor.addStep(action: "Check the receipt")
            await adaEditor.save()
            #expect(adaEditor.outcome == .adopted(caseID: "c_25", version: 2))
            await boEditor.save()
            guard case .overlap(let fields, let other, let questionID) = boEditor.outcome else {
                Issue.record("no overlap: \(String(describing: boEditor.outcome))")
                return
            }
            #expect(fields == ["title"] && other != nil && questionID != nil)
            #expect(
                boEditor.outcome?.sentence
                    == "Another edit (proposal \(other ?? "")) also changes the title. Resolve the proposal in the web app. Your draft is kept."
            )
            #expect(boMemory.drafts(in: bo.scope).first?.document.title == "Checkout scenario 25 by bo")
            let page = ada.casePage("C-25")
            await page.refresh()
            #expect(page.state.value?.version == 2 && page.state.value?.title == "Checkout scenario 25 by ada")
        }

        // M-SAVE-5: 422 and 409 show the server's sentence word for word, with its fields.
        @MainActor @Test func aRefusalShowsTheServersSentenceWithItsFieldsAndKeepsTheDraft() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let memory = CaseMemory()
            let root = try await server.cases("ada", memory: memory)
            // A folder deleted in the web app while the list was open.
            let lost = try #require(root.list(.folder(id: "f_99")).newCase())
            lost.setTitle("Lost folder")
            await lost.save()
            #expect(lost.outcome == .refused(message: "There is no such folder.", fields: ["folder_id": "unknown"]))
            #expect(lost.outcome?.sentence == "There is no such folder. (folder_id: unknown)")
            #expect(memory.drafts(in: root.scope).count == 1)
            try await server.fail("/api/projects/shop/proposals", status: 409)
            let other = try await editor(root, "C-32")
            other.setTitle("Checkout scenario 32, again")
            await other.save()
            #expect(
                other.outcome
                    == .refused(message: "This failure was injected for /api/projects/shop/proposals.", fields: [:]))
            #expect(memory.drafts(in: root.scope).count == 2)
        }

        // M-DRAFT-1: the draft outlives the editor (the app in the background, the view rebuilt).
        @MainActor @Test func aDraftSurvivesTheEditorGoingAway() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let memory = CaseMemory()
            let root = try await server.cases("ada", memory: memory)
            do {
                let editor = try await editor(root, "C-33")
                editor.setTitle("Typed before the background")
                editor.addStep(action: "A new last step")
            }
            let again = try await editor(root, "C-33")
            #expect(again.document.title == "Typed before the background")
            #expect(again.document.steps.last?.action == "A new last step")
        }

        // M-DRAFT-2
        @MainActor @Test func theSameUserSigningInAgainFindsTheDraftAndNoOneElseSeesIt() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let memory = CaseMemory()
            let secrets = InMemorySecretStore()
            let first = MainworthyWorkspace(connection: try await server.signedIn("ada", secrets: secrets))
            await first.load(preferred: "shop")
            let root = try #require(await CasesRootScreen.open(workspace: first, memory: memory))
            let editor = try await editor(root, "C-34")
            editor.setTitle("Kept across sign-in")
            await first.signOut()
            #expect(first.signedOut)
            let second = MainworthyWorkspace(connection: try await server.signedIn("ada", secrets: secrets))
            await second.load(preferred: "shop")
            let back = try #require(await CasesRootScreen.open(workspace: second, memory: memory))
            #expect(back.scope == root.scope)
            #expect(try await self.editor(back, "C-34").document.title == "Kept across sign-in")
            let bo = try await server.cases("bo", memory: memory)
            #expect(bo.scope.user != root.scope.user && memory.drafts(in: bo.scope).isEmpty)
            let otherServer = CaseScope(server: "http://127.0.0.1:1", user: root.scope.user, project: "shop")
            #expect(memory.drafts(in: otherServer).isEmpty)
            #expect(memory.draft(.edit(caseID: "c_34", baseVersion: 1), in: otherServer) == nil)
        }

        // M-DRAFT-3
        @MainActor @Test func draftsLiveInMemoryOnlyAndANewProcessHasNone() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let secrets = InMemorySecretStore()
            let workspace = MainworthyWorkspace(connection: try await server.signedIn("ada", secrets: secrets))
            await workspace.load(preferred: "shop")
            let root = try #require(await CasesRootScreen.open(workspace: workspace, memory: CaseMemory()))
            let editor = try await editor(root, "C-35")
            editor.setTitle("Only in memory")
            // Nothing of the draft reaches the secret store (the only storage the connection has).
            for account in secrets.accounts() {
                let stored = secrets.load(account)
                #expect(!String(describing: stored).contains("Only in memory"))
            }
            // A new process starts with a new, empty memory.
            #expect(CaseMemory().drafts(in: root.scope).isEmpty)
        }

        // M-DRAFT-4
        @MainActor @Test func cancelAsksOnlyWhenTheDraftChanged() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let unchanged = try await editor(root, "C-36")
            #expect(unchanged.cancel() == .closed && unchanged.isClosed)
            let changed = try await editor(root, "C-36")
            let title = changed.document.title
            changed.setTitle(title + " (edited)")
            #expect(changed.cancel() == .asksFirst && !changed.isClosed)
            changed.setTitle(title)
            #expect(changed.cancel() == .closed)
            let again = try await editor(root, "C-36")
            again.removeStep(at: 0)
            #expect(again.cancel() == .asksFirst)
            again.discard()
            #expect(try await editor(root, "C-36").document.steps.count == 3)
        }

        // M-DRAFT-5, O-18, M-NET-3
        @MainActor @Test func retryAfterALostReplySendsTheOriginalCommandEvenAfterTheDraftWasEdited() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let memory = CaseMemory()
            let root = try await server.cases("ada", memory: memory)
            let editor = try await editor(root, "C-37")
            editor.setTitle("Sent first")
            try await server.dropReply("/api/projects/shop/proposals")
            try await server.clearLog()
            await editor.save()
            #expect(editor.canRetry)
            guard case .unconfirmed = editor.outcome else {
                Issue.record("not unconfirmed: \(String(describing: editor.outcome))")
                return
            }
            editor.setTitle("Typed after the lost reply")
            await editor.retry()
            #expect(editor.outcome == .adopted(caseID: "c_37", version: 2))
            let posts = try await server.log().posts(endingWith: "/proposals")
            #expect(posts.count == 2 && posts[0].idempotencyKey == posts[1].idempotencyKey && posts[1].replayed)
            let page = root.casePage("C-37")
            await page.readHistory()
            #expect(page.history?.value?.map(\.version) == [2, 1])  // one proposal held
            await page.refresh()
            #expect(page.state.value?.title == "Sent first")
            // The later edit stays in the draft, now on top of the saved version, for a fresh Save.
            #expect(editor.document.title == "Typed after the lost reply" && !editor.isClosed)
            #expect(editor.target == .edit(caseID: "c_37", baseVersion: 2))
            await editor.save()
            #expect(editor.outcome == .adopted(caseID: "c_37", version: 3))
        }
    }
}
