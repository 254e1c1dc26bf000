import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import MainworthyCore
import Testing

extension AgainstReferenceServer {
    @Suite struct SaveAndDrafts {
        @MainActor func editor(_ root: CasesRootModel, _ number: String) async throws -> CaseEditorModel {
            let page = try await root.casePage(number: number)
            await page.refresh()
            return try #require(await page.edit())
        }

        // M-SAVE-1
        @MainActor @Test func anAdoptedProposalOpensTheSavedVersionAndDiscardsTheDraft() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let editor = try await editor(root, "C-30")
            editor.setTitle("Checkout scenario 30, clearer")
            editor.setReason("Clearer title")
            #expect((await root.drafts()).count == 1)
            await editor.save()
            #expect(editor.outcome == .adopted(caseID: try await server.caseID("C-30"), version: 2))
            #expect(editor.outcome?.sentence == "Saved as version 2.")
            #expect(editor.saved?.state.value?.title == "Checkout scenario 30, clearer")
            #expect(editor.saved?.state.value?.version == 2 && editor.isClosed)
            #expect((await root.drafts()).isEmpty)
            let page = try await root.casePage(number: "C-30")
            await page.readHistory()
            #expect(page.history?.value?.first?.reason == "Clearer title")
        }

        // M-NET-3, M-DRAFT-5 (mutation survivor m-c0c40c2ca1): Save pressed again while a save is under way sends
        // nothing more; the server holds one proposal.
        @MainActor @Test func saveWhileASaveIsUnderWaySendsNothingMore() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let editor = try await editor(root, "C-30")
            editor.setTitle("Checkout scenario 30, once")
            try await server.clearLog()
            async let first: Void = editor.save()
            async let second: Void = editor.save()
            _ = await (first, second)
            #expect(try await server.log().posts(endingWith: "/proposals").count == 1)
            #expect(editor.outcome == .adopted(caseID: try await server.caseID("C-30"), version: 2))
        }

        // M-SAVE-2, O-17
        @MainActor @Test func aWaitingProposalSaysItWaitsInTheQueueAndDiscardsTheDraft() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let legal = await root.list(.folder(id: "f_7"))
            let editor = try #require(await legal.newCase())
            editor.setTitle("Accept the terms")
            editor.addStep(action: "Open the terms", expected: "They are shown")
            await editor.save()
            guard case .waiting(let questionID) = editor.outcome else {
                Issue.record("not waiting: \(String(describing: editor.outcome))")
                return
            }
            #expect(editor.outcome?.sentence == "Your proposal waits in the Queue for acceptance.")
            #expect((await root.drafts()).isEmpty && editor.isClosed)
            let question = try await server.signedIn("ada").read(
                MainworthyAPI.question("shop", try #require(questionID)))
            #expect(question.kind == .proposal && question.title == "New case “Accept the terms”")
        }

        // M-SAVE-3: adopted, but the saved version cannot be read back.
        @MainActor @Test func anAdoptedSaveThatCannotBeReadBackKeepsTheDraftAndSaysSo() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let editor = try await editor(root, "C-31")
            editor.setTitle("Checkout scenario 31, clearer")
            try await server.fail("/api/projects/shop/cases/\(try await server.caseID("C-31"))", status: 500, times: 10)
            await editor.save()
            guard case .adoptedButUnread(let caseID, let version, let problem) = editor.outcome else {
                Issue.record("not unread: \(String(describing: editor.outcome))")
                return
            }
            #expect(caseID == (try await server.caseID("C-31")) && version == 2)
            #expect(
                problem == "This failure was injected for /api/projects/shop/cases/\(try await server.caseID("C-31")).")
            #expect(editor.outcome?.sentence.contains("could not be read back") == true)
            #expect((await root.drafts()).first?.document.title == "Checkout scenario 31, clearer")
            #expect(!editor.isClosed)
        }

        // M-SAVE-4: two users propose overlapping edits.
        @MainActor @Test func anOverlapNamesTheFieldsAndKeepsTheDraft() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            try await server.grant("bo", ["read", "produce"])
            let ada = try await server.cases("ada")
            let bo = try await server.cases("bo")
            let adaEditor = try await editor(ada, "C-25")
            let boEditor = try await editor(bo, "C-25")
            adaEditor.setTitle("Checkout scenario 25 by ada")
            boEditor.setTitle("Checkout scenario 25 by bo")
            boEditor.addStep(action: "Check the receipt")
            await adaEditor.save()
            #expect(adaEditor.outcome == .adopted(caseID: try await server.caseID("C-25"), version: 2))
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
            #expect((await bo.drafts()).first?.document.title == "Checkout scenario 25 by bo")
            let page = try await ada.casePage(number: "C-25")
            await page.refresh()
            #expect(page.state.value?.version == 2 && page.state.value?.title == "Checkout scenario 25 by ada")
        }

        // M-SAVE-5: a 422 and a 409 show the server's sentence word for word, with its fields; the draft stays.
        @MainActor @Test func aRefusalShowsTheServersSentenceWithItsFieldsAndKeepsTheDraft() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            // A folder deleted in the web app while the list was open: the server's own 422.
            let lost = try #require(await root.list(.folder(id: "f_99")).newCase())
            lost.setTitle("Lost folder")
            try await server.clearLog()
            await lost.save()
            #expect(try await server.log().posts(endingWith: "/proposals").map(\.status) == [422])
            #expect(lost.outcome == .refused(message: "There is no such folder.", fields: ["folder_id": "unknown"]))
            #expect(lost.outcome?.sentence == "There is no such folder. (folder_id: unknown)")
            #expect((await root.drafts()).map(\.document.title) == ["Lost folder"] && !lost.isClosed)
            // A 409. §2 gives a proposal no 409, and two people editing the same case make an overlap (M-SAVE-4),
            // so no server shows one: it is injected, in the server's envelope, with a field.
            let conflict: JSONValue = [
                "error": [
                    "code": "conflict", "message": "C-32 changed while you were editing it.",
                    "fields": ["base_version": "stale"],
                ]
            ]
            try await server.fail("/api/projects/shop/proposals", status: 409, reply: conflict)
            let other = try await editor(root, "C-32")
            other.setTitle("Checkout scenario 32, again")
            try await server.clearLog()
            await other.save()
            #expect(try await server.log().posts(endingWith: "/proposals").map(\.status) == [409])
            #expect(
                other.outcome
                    == .refused(message: "C-32 changed while you were editing it.", fields: ["base_version": "stale"]))
            #expect(other.outcome?.sentence == "C-32 changed while you were editing it. (base_version: stale)")
            let drafts = await root.drafts()
            #expect(drafts.count == 2 && drafts.contains { $0.document.title == "Checkout scenario 32, again" })
            #expect(!other.isClosed)
        }

        // M-DRAFT-1: the draft outlives the editor (the app in the background, the view rebuilt).
        @MainActor @Test func aDraftSurvivesTheEditorGoingAway() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
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
            let environment = ReferenceServer.environment()  // one process
            let first = MainworthyWorkspace(server: try await server.signIn("ada", environment: environment))
            await first.load(preferred: "shop")
            let root = try #require(first.cases)
            let editor = try await editor(root, "C-34")
            editor.setTitle("Kept across sign-in")
            await first.signOut()
            let stillSignedIn = await first.server.isSignedIn
            #expect(first.signedOut && !stillSignedIn)
            // The same user on the same server: the draft is back.
            let second = MainworthyWorkspace(server: try await server.signIn("ada", environment: environment))
            await second.load(preferred: "shop")
            let back = try #require(second.cases)
            #expect(try await self.editor(back, "C-34").document.title == "Kept across sign-in")
            // Another user on the same server does not see it.
            let bo = try await server.cases("bo", environment: environment)
            #expect(await bo.drafts().isEmpty)
            let elsewhereInProcess = try await self.editor(try await server.cases("ada"), "C-34")
            #expect(elsewhereInProcess.document.title != "Kept across sign-in")
            // The same user on another server (the same stand-in under another name: another origin) does not.
            let elsewhere = try #require(
                URL(string: server.url.absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost")))
            let model = try MainworthySignIn.model(build: server.build(elsewhere), environment: environment)
            await model.submitPassword(username: "ada", password: try await server.password("ada"))
            guard case .signedIn(let account) = model.state else {
                Issue.record("no sign-in at \(elsewhere): \(model.state)")
                return
            }
            #expect(account.serverKey != first.server.account.serverKey && account.userID == "u_1")
            let other = MainworthyWorkspace(
                server: try await MainworthyServer.open(
                    build: server.build(elsewhere), account: account, environment: environment))
            await other.load(preferred: "shop")
            let otherRoot = try #require(other.cases)
            #expect(await otherRoot.drafts().isEmpty)
            let page = try await otherRoot.casePage(number: "C-34")
            await page.refresh()
            #expect(try #require(await page.edit()).document.title != "Kept across sign-in")
        }

        // M-DRAFT-3: drafts live in memory only. The environment keeps its stores on disk here, so a draft written
        // there would show in the folder and in a new process over it.
        @MainActor @Test func draftsLiveInMemoryOnlyAndANewProcessHasNone() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let folder = try TemporaryFolder()
            let secrets = InMemorySecretStore()
            let environment = ReferenceServer.environment(secrets: secrets, stores: .directory(folder.url))
            let root = try await server.cases("ada", environment: environment)
            let editor = try await editor(root, "C-35")
            editor.setTitle("Only in memory")
            #expect(await root.drafts().map(\.document.title) == ["Only in memory"])
            // Nothing reached the disk: no store file, nothing of the draft in the secret store.
            let files = try FileManager.default.subpathsOfDirectory(atPath: folder.url.path)
            #expect(files.isEmpty, "\(files)")
            for account in secrets.accounts() {
                #expect(!String(describing: secrets.load(account)).contains("Only in memory"))
            }
            // A new process over the same folder and secrets, signed in from the stored session: no draft.
            let relaunched = ReferenceServer.environment(secrets: secrets, stores: .directory(folder.url))
            let again = try #require(try await MainworthyServer.stored(build: server.build(), environment: relaunched))
            let workspace = MainworthyWorkspace(server: again)
            await workspace.load(preferred: "shop")
            let newRoot = try #require(workspace.cases)
            #expect(await newRoot.drafts().isEmpty)
            #expect(try await self.editor(newRoot, "C-35").document.title == "Checkout scenario 35")
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
            #expect(again.isClosed)
            #expect(try await editor(root, "C-36").document.steps.count == 3)
        }

        // M-DRAFT-5, O-18, M-NET-3
        @MainActor @Test func retryAfterALostReplySendsTheOriginalCommandEvenAfterTheDraftWasEdited() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
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
            #expect(editor.outcome == .adopted(caseID: try await server.caseID("C-37"), version: 2))
            #expect(!editor.canRetry)  // the confirmed command is no longer pending
            let posts = try await server.log().posts(endingWith: "/proposals")
            #expect(posts.count == 2 && posts[0].idempotencyKey == posts[1].idempotencyKey && posts[1].replayed)
            let page = try await root.casePage(number: "C-37")
            #expect(page.history == nil)  // the history is read only once opened
            await page.readHistory()
            #expect(page.history?.value?.map(\.version) == [2, 1])  // one proposal held
            await page.refresh()
            #expect(page.state.value?.title == "Sent first")
            // The later edit stays in the draft, now on top of the saved version, for a fresh Save.
            #expect(editor.document.title == "Typed after the lost reply" && !editor.isClosed)
            #expect(editor.target == .edit(caseID: try await server.caseID("C-37"), baseVersion: 2))
            await editor.save()
            #expect(editor.outcome == .adopted(caseID: try await server.caseID("C-37"), version: 3))
        }
    }
}
