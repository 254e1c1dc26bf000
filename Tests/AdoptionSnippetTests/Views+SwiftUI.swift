#if canImport(SwiftUI)
    import CertainCore
    import MainworthyCore
    import OmnigentCore
    import PrompTugalCore
    import SwiftUI

    // snippet: certain-view
    struct OverviewScreen: View {  // SwiftUI: Apple only
        @State var model: OverviewModel

        var body: some View {
            List(model.latestLines) { line in
                LabeledContent(line.title, value: line.money.formatted(model.texts.language))
            }
            .overlay { if let problem = model.state.problem { Text(problem) } }
            .task { await model.refresh() }
            .refreshable { await model.refresh(pull: true) }
        }
    }
    // end snippet

    // snippet: omnigent-view
    struct SessionsScreen: View {  // SwiftUI: Apple only
        @State var model: SessionsListModel

        var body: some View {
            List(model.state.value?.sessions ?? []) { session in
                LabeledContent(session.title ?? session.id, value: session.status)
            }
            .searchable(text: $model.search)
            .task { await model.refresh() }
            .refreshable { await model.refresh() }
        }
    }
    // end snippet

    // snippet: mainworthy-view
    struct ProjectsScreen: View {  // SwiftUI: Apple only
        @State var workspace: MainworthyWorkspace

        var body: some View {
            List(workspace.projects.value ?? []) { project in
                Button(project.name) { workspace.open(project) }
            }
            .overlay { if let problem = workspace.projects.problem { Text(problem) } }
            .task { await workspace.load() }
        }
    }
    // end snippet

    // snippet: promptugal-view
    struct CommandCentreScreen: View {  // SwiftUI: Apple only
        @State var model: CommandCentreModel

        var body: some View {
            List(model.state.value?.tasks ?? []) { item in
                Label(item.text, systemImage: item.done == true ? "checkmark.circle" : "circle")
            }
            .task { await model.load() }
            .refreshable { await model.load() }
        }
    }
// end snippet
#endif
