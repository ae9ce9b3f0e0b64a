/// A command macOS has and this tool does not: it fails with errSecUnimplemented (exit status
/// 252), or prints its usage for `-h`. Its options are declared so that `-v` masks their secrets.
struct UnimplementedCommand: CommandDefinition {
    let name: String
    let usage: String
    let summary: String
    let options: OptionParser
    var isImplemented: Bool { false }

    init(_ name: String, usage: String, summary: String, options: OptionParser = .operandsOnly) {
        self.name = name
        self.usage = usage
        self.summary = summary
        self.options = options
    }

    func run(_ invocation: Invocation) throws -> Int32 {
        if invocation.arguments.first == "-h" { throw ToolError.usage(reason: nil) }
        throw ToolError.unimplemented(command: name)
    }
}
