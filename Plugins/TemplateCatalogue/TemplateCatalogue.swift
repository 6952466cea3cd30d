import Foundation
import PackagePlugin

/// Compiles every page template of a target (each `Resources/Templates/*.mustache`) into one generated Swift file, so a
/// new page is its template file and nothing else: no list in Package.swift, none in the code.
@main
struct TemplateCatalogue: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let folder = target.directoryURL.appending(path: "Resources/Templates")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".mustache") }.sorted()
        let templates = names.map { folder.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "TemplateCatalogue.swift")
        return [
            .buildCommand(
                displayName: "Compiling \(templates.count) page templates of \(target.name)",
                executable: try context.tool(named: "template-catalogue").url,
                arguments: [output.path] + templates.map(\.path), inputFiles: templates, outputFiles: [output])
        ]
    }
}
